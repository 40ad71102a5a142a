//! The launch a creator asks for (`POST /launchpad/prepare`, and the base of a record): its fields, how
//! each is checked, and the schema that says so.

use crate::error::{address, ApiError, ErrorCode};
use crate::schema;
use curve::{Preset, QuoteAsset};
use serde::Deserialize;
use utoipa::openapi::{Object, RefOr, Schema};
use utoipa::ToSchema;

/// The total supply every launch mints, in whole tokens.
pub const TOTAL_SUPPLY: &str = "1000000000";
/// Slippage allowed on the first buy of a launch, basis points.
pub const FIRST_BUY_SLIPPAGE_BPS: u16 = 100;

/// A launch (prepare; also the base of record).
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LaunchRequest {
    /// `solana`.
    #[schema(schema_with = chain_schema)]
    pub chain_key: String,
    /// `bonding-curve`.
    #[schema(schema_with = launch_type_schema)]
    pub launch_type: String,
    /// `fair`, `shield` or `distribute`.
    #[schema(schema_with = preset_schema)]
    pub curve_preset: String,
    /// `sol` or `usdc`.
    #[schema(schema_with = quote_schema)]
    pub quote: String,
    /// 1 to 32 characters, no control characters.
    #[schema(schema_with = name_schema)]
    pub name: String,
    /// 1 to 10 uppercase letters or digits.
    #[schema(schema_with = symbol_schema)]
    pub symbol: String,
    /// Up to 1000 characters; served in the metadata JSON.
    #[serde(default)]
    #[schema(schema_with = description_schema)]
    pub description: String,
    /// Whole tokens: `1000000000`.
    #[schema(schema_with = supply_schema)]
    pub total_supply: String,
    /// The creator's wallet: the only signer.
    #[schema(schema_with = crate::schema::solana_address)]
    pub creator: String,
    /// Optional first buy in whole quote tokens (`"0.5"` SOL), in the same transaction.
    #[serde(default)]
    #[schema(schema_with = first_buy_schema)]
    pub first_buy_amount: Option<String>,
    /// Optional image at prepare: base64 (or a `data:image/...;base64,` URL) of a PNG, JPEG, GIF or WebP of
    /// at most 1 MiB and 4096x4096, checked by decoding it. Stored by the service and served at a stable
    /// URL (the metadata JSON's `image`). Ignored at record.
    #[serde(default)]
    #[schema(schema_with = image_schema)]
    pub image: Option<String>,
    /// Optional website: an `https://` URL.
    #[serde(default)]
    #[schema(schema_with = website_schema)]
    pub website: Option<String>,
    /// Optional X account: `https://x.com/<handle>` (or twitter.com).
    #[serde(default)]
    #[schema(schema_with = twitter_schema)]
    pub twitter: Option<String>,
    /// Optional Telegram: `https://t.me/<name>` (or telegram.me).
    #[serde(default)]
    #[schema(schema_with = telegram_schema)]
    pub telegram: Option<String>,
    /// Optional: share the creator fees (bonding-phase trading fees and the locked creator position's AMM
    /// fees) among 1 to 10 wallets, shares in bps summing to 10,000, from the first trade (set in the launch's
    /// own transaction). The creator role can change them later until they are locked. Ignored at record.
    #[serde(default)]
    #[schema(min_items = 1, max_items = 10)]
    pub fee_shares: Option<Vec<crate::routes::fee_shares::FeeRecipientBody>>,
    /// With `feeShares`: make them final at launch.
    #[serde(default)]
    pub lock_fee_shares: bool,
}

/// The only chain launches are on.
pub const LAUNCH_CHAIN: &str = "solana";
/// The only launch type.
pub const LAUNCH_TYPE: &str = "bonding-curve";
/// Most characters in a name, a symbol, a description and a link.
pub const MAX_NAME_CHARS: usize = 32;
pub const MAX_SYMBOL_CHARS: usize = 10;
pub const MAX_DESCRIPTION_CHARS: usize = 1000;
pub const MAX_LINK_CHARS: usize = 200;
/// Hosts of the X and Telegram links.
pub const TWITTER_HOSTS: [&str; 2] = ["x.com", "twitter.com"];
pub const TELEGRAM_HOSTS: [&str; 2] = ["t.me", "telegram.me"];

fn chain_schema() -> Object {
    schema::one_of([LAUNCH_CHAIN]).build()
}
fn launch_type_schema() -> Object {
    schema::one_of([LAUNCH_TYPE]).build()
}
fn preset_schema() -> Object {
    schema::one_of(Preset::ALL.map(Preset::name)).build()
}
fn quote_schema() -> Object {
    schema::one_of(QuoteAsset::ALL.map(QuoteAsset::name)).build()
}
fn name_schema() -> Object {
    schema::text(1, MAX_NAME_CHARS)
        .pattern(Some("^[^\\x00-\\x1f\\x7f-\\x9f]*$"))
        .build()
}
fn symbol_schema() -> Object {
    schema::text(1, MAX_SYMBOL_CHARS)
        .pattern(Some(format!("^[A-Z0-9]{{1,{MAX_SYMBOL_CHARS}}}$")))
        .build()
}
fn description_schema() -> Object {
    schema::text(0, MAX_DESCRIPTION_CHARS).build()
}
/// [`TOTAL_SUPPLY`]'s digits, any of them separated by `,` or `_`.
fn supply_schema() -> Object {
    let digits: Vec<String> = TOTAL_SUPPLY.chars().map(String::from).collect();
    schema::text(TOTAL_SUPPLY.len(), usize::MAX)
        .max_length(None)
        .pattern(Some(format!("^[,_]*{}[,_]*$", digits.join("[,_]*"))))
        .build()
}
/// Positive, in whole quote tokens, valid for every quote token: at most the fewest decimals any has, and
/// few enough whole digits that the amount fits in base units of the one with the most decimals (SOL's 9: at
/// most 18,446,744,073 whole).
fn first_buy_schema() -> RefOr<Schema> {
    let (decimals, max) = first_buy_bounds();
    schema::nullable(schema::human_amount(decimals, max))
}
/// [`first_buy_schema`]'s pattern, which the handler applies as it is.
static FIRST_BUY_PATTERN: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    let (decimals, max) = first_buy_bounds();
    regex::Regex::new(&schema::human_amount_pattern(decimals, max)).expect("the pattern compiles")
});

/// The decimals and the largest base-unit amount of [`first_buy_schema`].
fn first_buy_bounds() -> (u8, u128) {
    let decimals = QuoteAsset::ALL.map(QuoteAsset::decimals);
    let (fewest, most) = (
        decimals.into_iter().min().unwrap_or(0),
        decimals.into_iter().max().unwrap_or(0),
    );
    (
        fewest,
        u128::from(u64::MAX) / 10u128.pow(u32::from(most - fewest)),
    )
}
fn image_schema() -> RefOr<Schema> {
    schema::nullable(schema::text(
        0,
        crate::routes::launch::images::PREPARE_BODY_LIMIT,
    ))
}
/// An `https://` URL on a dotted host, without credentials.
/// The last label starts with a letter: a host ending in a number (`0-0.0`) is read as an IPv4 address by
/// URL parsers, and refused.
fn website_schema() -> RefOr<Schema> {
    link_schema(WEBSITE)
}
const WEBSITE: &str =
    "(?:[a-z0-9]+(?:-[a-z0-9]+)*\\.)+[a-z][a-z0-9]*(?:-[a-z0-9]+)*(?:/[A-Za-z0-9._~%-]*)*";
fn twitter_schema() -> RefOr<Schema> {
    profile_schema(&TWITTER_HOSTS)
}
fn telegram_schema() -> RefOr<Schema> {
    profile_schema(&TELEGRAM_HOSTS)
}
/// A profile on one of `hosts` (`www.` allowed): one path segment naming the account.
fn profile_schema(hosts: &[&str]) -> RefOr<Schema> {
    let hosts: Vec<String> = hosts.iter().map(|h| h.replace('.', "\\.")).collect();
    link_schema(&format!(
        "(?:www\\.)?(?:{})/[A-Za-z0-9_+-]+/?",
        hosts.join("|")
    ))
}
/// `https://` and `rest`, at most [`MAX_LINK_CHARS`]; blank is no link.
fn link_schema(rest: &str) -> RefOr<Schema> {
    schema::nullable(
        schema::text(0, MAX_LINK_CHARS).pattern(Some(format!("^(?:https://{rest}|\\s*)$"))),
    )
}

/// A launch request that passed validation.
pub struct Launch {
    pub preset: Preset,
    pub quote: QuoteAsset,
    pub creator: anchor_lang::prelude::Pubkey,
    pub first_buy: Option<u64>,
    pub website: Option<String>,
    pub twitter: Option<String>,
    pub telegram: Option<String>,
}

/// An optional link: blank is none; otherwise an `https://` URL without credentials, at most 200
/// characters, on one of `hosts` when given, and then exactly a profile: one path segment naming the account
/// (letters, digits, `_`, and `+` or `-` as Telegram invite links use), no query or fragment.
pub fn link(field: &str, value: Option<&str>, hosts: &[&str]) -> Result<Option<String>, ApiError> {
    let Some(v) = value.map(str::trim).filter(|v| !v.is_empty()) else {
        return Ok(None);
    };
    let bad_link = || {
        let rule = if hosts.is_empty() {
            "an https URL".to_string()
        } else {
            format!("an https URL on {}", hosts.join(" or "))
        };
        ApiError::new(
            ErrorCode::InvalidLink,
            format!("`{field}` must be {rule}, at most 200 characters"),
        )
    };
    let url = reqwest::Url::parse(v).map_err(|_| bad_link())?;
    let host = url.host_str().unwrap_or("").to_ascii_lowercase();
    let host = host.strip_prefix("www.").unwrap_or(&host);
    let ok = v.chars().count() <= MAX_LINK_CHARS
        && url.scheme() == "https"
        && url.username().is_empty()
        && url.password().is_none()
        && url.domain().is_some_and(is_dotted_name)
        && (hosts.is_empty() || (hosts.contains(&host) && is_profile(&url)));
    ok.then(|| Some(v.to_string())).ok_or_else(bad_link)
}

/// A domain name of two labels or more whose last one starts with a letter (not an address).
fn is_dotted_name(domain: &str) -> bool {
    domain.rsplit_once('.').is_some_and(|(rest, last)| {
        !rest.is_empty() && last.starts_with(|c: char| c.is_ascii_alphabetic())
    })
}

/// `https://host/<account>` (a trailing `/` allowed) and nothing more.
fn is_profile(url: &reqwest::Url) -> bool {
    let account = url.path().trim_start_matches('/').trim_end_matches('/');
    url.query().is_none()
        && url.fragment().is_none()
        && !account.is_empty()
        && account
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '+' | '-'))
}

impl LaunchRequest {
    pub fn validate(&self) -> Result<Launch, ApiError> {
        if self.chain_key != LAUNCH_CHAIN {
            return Err(ApiError::new(
                ErrorCode::InvalidChain,
                "launches are on `solana` only",
            ));
        }
        if self.launch_type != LAUNCH_TYPE {
            return Err(ApiError::new(
                ErrorCode::InvalidLaunchType,
                "`launchType` must be `bonding-curve`",
            ));
        }
        let preset = Preset::from_name(&self.curve_preset).ok_or_else(|| {
            ApiError::new(
                ErrorCode::InvalidPreset,
                "`curvePreset` must be `fair`, `shield` or `distribute`",
            )
        })?;
        let quote = QuoteAsset::from_name(&self.quote).ok_or_else(|| {
            ApiError::new(ErrorCode::InvalidQuote, "`quote` must be `sol` or `usdc`")
        })?;
        let chars = self.name.chars().count();
        if chars == 0 || chars > MAX_NAME_CHARS || self.name.chars().any(char::is_control) {
            return Err(ApiError::new(
                ErrorCode::InvalidName,
                "`name` must be 1 to 32 characters without control characters",
            ));
        }
        if self.symbol.is_empty()
            || self.symbol.len() > MAX_SYMBOL_CHARS
            || !self
                .symbol
                .chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
        {
            return Err(ApiError::new(
                ErrorCode::InvalidSymbol,
                "`symbol` must be 1 to 10 uppercase letters or digits",
            ));
        }
        if self.description.chars().count() > MAX_DESCRIPTION_CHARS {
            return Err(ApiError::new(
                ErrorCode::InvalidDescription,
                "`description` is at most 1000 characters",
            ));
        }
        if self.total_supply.replace([',', '_'], "") != TOTAL_SUPPLY {
            return Err(ApiError::new(
                ErrorCode::InvalidSupply,
                "`totalSupply` must be 1000000000: every launch mints one billion tokens",
            ));
        }
        let creator = address("creator", Some(&self.creator))?;
        let first_buy = match self.first_buy_amount.as_deref().map(str::trim) {
            None | Some("") => None,
            Some(a) => Some(
                // Exactly what the document's pattern admits (the same for every quote token), then
                // read in this quote's base units.
                FIRST_BUY_PATTERN
                    .is_match(a)
                    .then(|| curve::display::parse_decimal(a, quote.decimals()))
                    .flatten()
                    .filter(|v| *v > 0)
                    .ok_or_else(|| {
                        ApiError::new(ErrorCode::InvalidAmount,
                            format!(
                                "`firstBuyAmount` must be a positive decimal in whole {} with at most {} decimals",
                                quote.name().to_uppercase(),
                                first_buy_bounds().0
                            ),
                        )
                    })?,
            ),
        };
        Ok(Launch {
            preset,
            quote,
            creator,
            first_buy,
            website: link("website", self.website.as_deref(), &[])?,
            twitter: link("twitter", self.twitter.as_deref(), &TWITTER_HOSTS)?,
            telegram: link("telegram", self.telegram.as_deref(), &TELEGRAM_HOSTS)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn websites_on_addresses_or_numeric_hosts_are_refused() {
        for bad in [
            "https://0-0-0-0.0",
            "https://1.2.3.4/",
            "https://example.0x1f",
            "https://localhost",
            "http://example.org",
        ] {
            assert!(link("website", Some(bad), &[]).is_err(), "{bad}");
        }
        for good in ["https://0.example.org/a", "https://my-token.xyz"] {
            assert!(link("website", Some(good), &[]).is_ok(), "{good}");
        }
    }

    proptest! {
        /// Every `website` the document calls valid is one the handler takes.
        #[test]
        fn websites_of_the_schema_are_taken(s in proptest::string::string_regex(
            // The same language with repetitions bounded, so that URLs stay within the length limit.
            &WEBSITE
                .replace("]+", "]{1,6}")
                .replace("]*", "]{0,6}")
                .replace(")+", "){1,3}")
                .replace(")*", "){0,2}")
        ).unwrap()) {
            let url = format!("https://{s}");
            prop_assume!(url.chars().count() <= MAX_LINK_CHARS);
            prop_assert!(link("website", Some(&url), &[]).is_ok(), "{url}");
        }

        /// Every `firstBuyAmount` the document calls valid is one the handler takes, whatever the quote.
        #[test]
        fn first_buys_of_the_schema_parse_in_every_quote(
            s in proptest::string::string_regex({
                let (decimals, max) = first_buy_bounds();
                let p = schema::human_amount_pattern(decimals, max);
                p.trim_start_matches('^').trim_end_matches('$').to_string()
            }.as_str()).unwrap()
        ) {
            for quote in QuoteAsset::ALL {
                let v = curve::display::parse_decimal(&s, quote.decimals());
                prop_assert!(v.is_some_and(|v| v > 0), "{s} in {}", quote.name());
            }
        }

        /// And the handler takes nothing the document calls invalid: decimal-looking text, valid or not,
        /// passes the request's validation exactly when the document's pattern matches, for either quote.
        #[test]
        fn the_handler_takes_exactly_the_pattern(s in "[0-9]{0,14}(\\.[0-9]{0,10})?") {
            let pattern = regex::Regex::new(&{
                let (decimals, max) = first_buy_bounds();
                schema::human_amount_pattern(decimals, max)
            })
            .unwrap();
            for quote in ["sol", "usdc"] {
                let request: LaunchRequest = serde_json::from_value(serde_json::json!({
                    "chainKey": "solana", "launchType": "bonding-curve", "curvePreset": "fair",
                    "quote": quote, "name": "Name", "symbol": "SYM", "totalSupply": "1000000000",
                    "creator": "9eHC6gHSiyx5W77J7LSnEibuWCQSSh53KqG9V38ghTRS", "firstBuyAmount": s,
                }))
                .unwrap();
                let taken = match request.validate() {
                    Ok(launch) => launch.first_buy.is_some() || s.is_empty(),
                    Err(e) => {
                        prop_assert_eq!(e.code, "INVALID_AMOUNT", "{}", e.message);
                        false
                    }
                };
                prop_assert_eq!(taken, s.is_empty() || pattern.is_match(&s), "{} in {}", s, quote);
            }
        }
    }
}
