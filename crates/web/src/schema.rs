//! OpenAPI schemas of the values request bodies carry, built from the rules and constants the handlers
//! validate with, so the document states exactly what is accepted.
//!
//! A Solana address or signature is base58 of exactly 32 or 64 bytes. Its pattern is derived from those
//! byte counts: at each length such a value can have, the digits that keep it within range (below the
//! largest value, at least the smallest with that many bytes), written out for the first three digits of
//! each bound; values with one leading zero byte (a leading `1`) likewise by their first digit; and the
//! all-zero one (the system program). Every string the pattern matches is accepted (tested); what it leaves
//! out (values with two or more leading zero bytes, and those sharing a bound's first three digits: about
//! one key in 30,000) is still accepted by the handlers. Exact patterns would run to tens of kilobytes,
//! too slow for generators to draw from.

use std::sync::LazyLock;
use utoipa::openapi::schema::{AllOfBuilder, AnyOfBuilder};
use utoipa::openapi::{ObjectBuilder, Ref, RefOr, Schema, Type};

/// The base58 alphabet, in digit order.
const ALPHABET: &[u8; 58] = b"123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

/// A regex class of the base58 digits `from..=to` (empty when `from > to`), with runs of consecutive
/// characters written as ranges.
fn class(from: usize, to: usize) -> String {
    if from > to {
        return String::new();
    }
    if from == to {
        return (ALPHABET[from] as char).to_string();
    }
    let mut out = String::from("[");
    let mut i = from;
    while i <= to {
        let mut j = i;
        while j < to && ALPHABET[j + 1] == ALPHABET[j] + 1 {
            j += 1;
        }
        out.push(ALPHABET[i] as char);
        if j > i {
            if j > i + 1 {
                out.push('-');
            }
            out.push(ALPHABET[j] as char);
        }
        i = j + 1;
    }
    out.push(']');
    out
}

/// `n` base58 digits of any value.
fn digits_any(n: usize) -> String {
    match n {
        0 => String::new(),
        1 => class(0, 57),
        n => format!("{}{{{n}}}", class(0, 57)),
    }
}

/// Either of two alternatives, either of which may be absent (empty).
fn either(a: String, b: String) -> String {
    match (a.is_empty(), b.is_empty()) {
        (true, _) => b,
        (_, true) => a,
        _ => format!("(?:{a}|{b})"),
    }
}

/// How many leading digits of a bound [`base58_pattern`] follows exactly; past them the values that share
/// those digits with the bound (one in 58^3 of that length) are left out.
const BOUND_DIGITS: usize = 3;

/// Alternatives matching strings of `bound.len()` digits (digit indices) whose value is at most `bound`
/// (`below`) or at least it, none starting with the zero digit: equal to the bound up to some digit (of the
/// first [`BOUND_DIGITS`]), then past it there, then anything.
fn bounded(bound: &[usize], below: bool) -> Vec<String> {
    let mut alternatives = Vec::new();
    for (i, &d) in bound.iter().enumerate().take(BOUND_DIGITS) {
        let lowest = usize::from(i == 0);
        let past = if below {
            d.checked_sub(1)
                .filter(|h| *h >= lowest)
                .map_or(String::new(), |h| class(lowest, h))
        } else {
            class(d + 1, 57)
        };
        if !past.is_empty() {
            alternatives.push(format!(
                "{}{past}{}",
                literal(&bound[..i]),
                digits_any(bound.len() - i - 1)
            ));
        }
    }
    alternatives
}

fn literal(digits: &[usize]) -> String {
    digits.iter().map(|d| ALPHABET[*d] as char).collect()
}

/// The base58 digits (indices) of a big-endian number without leading zero bytes.
fn digits(bytes: &[u8]) -> Vec<usize> {
    bs58::encode(bytes)
        .into_string()
        .bytes()
        .map(|c| ALPHABET.iter().position(|a| *a == c).unwrap_or(0))
        .collect()
}

/// Values with more leading zero bytes than this are left out (one in 65,536), but the all-zero one.
const MAX_LEADING_ZEROS: usize = 1;

/// The regex (anchored) of base58 strings that decode to exactly `n` bytes; see the module's note.
pub fn base58_pattern(n: usize) -> String {
    let mut alternatives = Vec::new();
    for zeros in 0..=MAX_LEADING_ZEROS {
        let width = n - zeros;
        // The values of `width` bytes without a leading zero byte: from 256^(width-1) to 256^width - 1.
        let mut low = vec![0u8; width];
        low[0] = 1;
        let (low, high) = (digits(&low), digits(&vec![0xff; width]));
        let prefix = "1".repeat(zeros);
        for len in low.len()..=high.len() {
            if zeros == 0 && (len == low.len() || len == high.len()) {
                alternatives.extend(bounded(
                    if len == low.len() { &low } else { &high },
                    len == high.len(),
                ));
                continue;
            }
            let body = {
                // Past a bound's first digit only: a subset, short enough to write out for every prefix.
                let first = if len == low.len() {
                    class(low[0] + 1, 57)
                } else if len == high.len() {
                    class(1, high[0].saturating_sub(1))
                } else {
                    class(1, 57)
                };
                if first.is_empty() {
                    continue;
                }
                first + &digits_any(len - 1)
            };
            alternatives.push(format!("{prefix}{body}"));
        }
    }
    alternatives.push("1".repeat(n));
    format!("^(?:{})$", alternatives.join("|"))
}

fn string(pattern: &str, description: &str) -> ObjectBuilder {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .pattern(Some(pattern))
        .description(Some(description))
}

/// [`base58_pattern`] of 32 and 64 bytes, computed once.
static ADDRESS: LazyLock<String> = LazyLock::new(|| base58_pattern(32));
static SIGNATURE: LazyLock<String> = LazyLock::new(|| base58_pattern(64));

/// The pattern of a Solana address followed by `suffix` (a regex).
pub fn solana_address_then(suffix: &str) -> String {
    format!("{}{suffix}$", ADDRESS.trim_end_matches('$'))
}

/// The `SolanaAddress` component: base58 of 32 bytes.
pub struct SolanaAddress;

impl utoipa::PartialSchema for SolanaAddress {
    fn schema() -> RefOr<Schema> {
        string(&ADDRESS, "A Solana address: base58 of 32 bytes").into()
    }
}

impl utoipa::ToSchema for SolanaAddress {
    fn name() -> std::borrow::Cow<'static, str> {
        "SolanaAddress".into()
    }
}

/// The `SolanaSignature` component: base58 of 64 bytes.
pub struct SolanaSignature;

impl utoipa::PartialSchema for SolanaSignature {
    fn schema() -> RefOr<Schema> {
        string(
            &SIGNATURE,
            "A Solana transaction signature: base58 of 64 bytes",
        )
        .into()
    }
}

impl utoipa::ToSchema for SolanaSignature {
    fn name() -> std::borrow::Cow<'static, str> {
        "SolanaSignature".into()
    }
}

/// A Solana address (a reference to [`SolanaAddress`]).
pub fn solana_address() -> RefOr<Schema> {
    RefOr::Ref(Ref::from_schema_name("SolanaAddress"))
}

/// A Solana transaction signature (a reference to [`SolanaSignature`]).
pub fn solana_signature() -> RefOr<Schema> {
    RefOr::Ref(Ref::from_schema_name("SolanaSignature"))
}

/// [`evm_address`]'s pattern.
pub const EVM_ADDRESS_PATTERN: &str = "^0x(?:[0-9a-f]{40}|[0-9A-F]{40})$";

/// An EVM address as `swap_core::chains::evm_address` takes it. A pattern cannot check an EIP-55 checksum, so
/// it admits the two spellings that carry none (all lowercase, all uppercase); a mixed-case address is
/// accepted too when its checksum is right.
pub fn evm_address() -> RefOr<Schema> {
    string(
        EVM_ADDRESS_PATTERN,
        "An EVM address: 0x and 40 hex digits, all lowercase or all uppercase, or mixed case with a valid \
         EIP-55 checksum",
    )
    .into()
}

/// An EVM transaction hash: 0x and 64 hex digits.
pub const EVM_HASH_PATTERN: &str = "^0x[0-9a-fA-F]{64}$";

pub fn evm_hash() -> RefOr<Schema> {
    string(
        EVM_HASH_PATTERN,
        "An EVM transaction hash: 0x and 64 hex digits",
    )
    .into()
}

/// The decimal digits of an integer from `min` (0 or 1) to `max`, leading zeros allowed (as the handlers
/// parse them). Exact: a number with fewer digits than `max` is below it, one with as many is compared
/// digit by digit.
pub fn integer_pattern(min: u8, max: u128) -> String {
    fn below(top: &[u8], first: bool) -> String {
        let Some((&d, rest)) = top.split_first() else {
            return String::new();
        };
        let lowest = u8::from(first);
        let smaller = match d.checked_sub(1).filter(|h| *h >= lowest) {
            None => String::new(),
            Some(h) => {
                let class = if h == lowest {
                    format!("{h}")
                } else {
                    format!("[{lowest}-{h}]")
                };
                match rest.len() {
                    0 => class,
                    n => format!("{class}[0-9]{{{n}}}"),
                }
            }
        };
        either(smaller, format!("{d}{}", below(rest, false)))
    }
    let top: Vec<u8> = max.to_string().bytes().map(|b| b - b'0').collect();
    let mut alternatives = vec![];
    match top.len() {
        1 => {}
        2 => alternatives.push("[1-9]".to_string()),
        n => alternatives.push(format!("[1-9][0-9]{{0,{}}}", n - 2)),
    }
    alternatives.push(below(&top, true));
    let zero = if min == 0 { "|0" } else { "" };
    format!("^0*(?:{}{zero})$", alternatives.join("|"))
}

/// An amount in base units from `min` (0 or 1) to `max`, as a decimal string.
pub fn amount(min: u8, max: u128) -> ObjectBuilder {
    string(
        &integer_pattern(min, max),
        &format!("An integer from {min} to {max} in base units, as a decimal string"),
    )
}

/// A positive amount in whole tokens with at most `decimals` decimals whose base units are at most `max`: the
/// pattern admits those with fewer integer digits than `max / 10^decimals` has (so never too large).
pub fn human_amount(decimals: u8, max: u128) -> ObjectBuilder {
    string(
        &human_amount_pattern(decimals, max),
        &format!("A positive amount in whole tokens, at most {decimals} decimals"),
    )
}

/// The pattern of [`human_amount`].
pub fn human_amount_pattern(decimals: u8, max: u128) -> String {
    let whole = (max / 10u128.pow(u32::from(decimals))).to_string().len() - 1;
    let d = decimals;
    format!(
        "^(?:[1-9][0-9]{{0,{}}}(?:\\.[0-9]{{1,{d}}})?|0?\\.[0-9]{{0,{}}}[1-9])$",
        whole.saturating_sub(1),
        d.saturating_sub(1)
    )
}

/// One of `names`.
pub fn one_of<'a>(names: impl IntoIterator<Item = &'a str>) -> ObjectBuilder {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .enum_values(Some(names.into_iter().collect::<Vec<_>>()))
}

/// An integer from `min` to `max`.
pub fn integer(min: u64, max: u64) -> ObjectBuilder {
    ObjectBuilder::new()
        .schema_type(Type::Integer)
        .minimum(Some(min as f64))
        .maximum(Some(max as f64))
}

/// A string of `min` to `max` characters.
pub fn text(min: usize, max: usize) -> ObjectBuilder {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .min_length(Some(min))
        .max_length(Some(max))
}

/// `schema` with an example (generators start from examples, so two fields that must differ get two).
pub fn with_example(schema: RefOr<Schema>, example: &str) -> RefOr<Schema> {
    AllOfBuilder::new().item(schema).examples([example]).into()
}

/// `schema` or `null`, which serde reads as an absent optional field.
pub fn nullable(schema: impl Into<RefOr<Schema>>) -> RefOr<Schema> {
    AnyOfBuilder::new()
        .item(schema)
        .item(ObjectBuilder::new().schema_type(Type::Null))
        .into()
}

/// Control characters (Unicode `Cc`, what `char::is_control` finds), as a regex class body.
pub const CONTROL: &str = "\\x00-\\x1f\\x7f-\\x9f";

/// Text of `min` (at least 1) to `max` characters once trimmed of surrounding whitespace, without control
/// characters.
pub fn trimmed_text(max: usize) -> ObjectBuilder {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .pattern(Some(format!(
            "^\\s*[^\\s{CONTROL}](?:[^{CONTROL}]{{0,{}}}[^\\s{CONTROL}])?\\s*$",
            max.saturating_sub(2)
        )))
}

/// An object of `properties` (name, schema, required); other fields are ignored, as serde ignores them.
pub fn object(properties: Vec<(&str, RefOr<Schema>, bool)>) -> ObjectBuilder {
    properties.into_iter().fold(
        ObjectBuilder::new().schema_type(Type::Object),
        |o, (name, schema, required)| {
            let o = o.property(name, schema);
            if required {
                o.required(name)
            } else {
                o
            }
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn matcher(pattern: &str) -> regex::Regex {
        regex::Regex::new(pattern).unwrap()
    }

    static ADDRESS_RE: LazyLock<regex::Regex> = LazyLock::new(|| matcher(&ADDRESS));

    #[test]
    fn known_addresses_and_signatures_match() {
        let address = matcher(&ADDRESS);
        for a in [
            "11111111111111111111111111111111",
            "So11111111111111111111111111111111111111112",
            "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA",
            "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v",
        ] {
            assert!(a.parse::<solana_pubkey::Pubkey>().is_ok(), "{a}");
            assert!(address.is_match(a), "{a}");
        }
        // Past the largest value, too long, too short.
        for a in [
            "JEKNVnkbo3jma5nREBBJCDoXFVeKkD56V3xKrvRmWxFH",
            "So111111111111111111111111111111111111111112",
            "So1111111111111111111111111111111111111112",
        ] {
            assert!(a.parse::<solana_pubkey::Pubkey>().is_err(), "{a}");
            assert!(!address.is_match(a), "{a}");
        }
        let signature = matcher(&SIGNATURE);
        let s = bs58::encode([7u8; 64]).into_string();
        assert!(signature.is_match(&s) && !address.is_match(&s));
        assert!(ADDRESS.len() < 4_000 && SIGNATURE.len() < 8_000);
    }

    #[test]
    fn integer_patterns_are_exact_at_the_bounds() {
        for max in [1u128, 9, 10, 42, 100, 5_000, u64::MAX as u128, u128::MAX] {
            let m = matcher(&integer_pattern(1, max));
            for v in [1, max / 2 + 1, max.saturating_sub(1).max(1), max] {
                assert!(m.is_match(&v.to_string()), "{v} <= {max}");
            }
            if let Some(above) = max.checked_add(1) {
                assert!(!m.is_match(&above.to_string()), "{above} > {max}");
            }
            assert!(!m.is_match("0") && !m.is_match("") && !m.is_match("1 "));
            assert!(m.is_match("01"), "leading zeros parse");
            assert!(matcher(&integer_pattern(0, max)).is_match("0"));
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2_000))]

        /// Every key without leading zero bytes matches; every string the pattern matches is a key.
        #[test]
        fn address_pattern_is_exact(bytes in any::<[u8; 32]>(), zeros in 0usize..32) {
            let address = &*ADDRESS_RE;
            let text = bs58::encode(bytes).into_string();
            let high = bs58::encode([0xffu8; 32]).into_string();
            let mut low = [0u8; 32];
            low[0] = 1;
            let low = bs58::encode(low).into_string();
            let near_bound = |t: &str| {
                let b = if t.len() == high.len() { &high } else { &low };
                t.get(..BOUND_DIGITS) == b.get(..BOUND_DIGITS)
            };
            if bytes[0] != 0 && !near_bound(&text) {
                prop_assert!(address.is_match(&text), "{text}");
            }
            let mut padded = bytes;
            padded[..zeros].fill(0);
            let text = bs58::encode(padded).into_string();
            if address.is_match(&text) {
                prop_assert!(text.parse::<solana_pubkey::Pubkey>().is_ok());
            }
        }

        #[test]
        fn strings_of_the_address_pattern_are_addresses(
            s in proptest::string::string_regex(
                base58_pattern(32).trim_start_matches('^').trim_end_matches('$')
            ).unwrap()
        ) {
            prop_assert!(s.parse::<solana_pubkey::Pubkey>().is_ok(), "{s}");
        }

        #[test]
        fn strings_of_the_signature_pattern_are_signatures(
            s in proptest::string::string_regex(
                base58_pattern(64).trim_start_matches('^').trim_end_matches('$')
            ).unwrap()
        ) {
            prop_assert!(s.parse::<solana_signature::Signature>().is_ok(), "{s}");
        }

        #[test]
        fn amounts_of_the_pattern_parse_within_bounds(
            s in proptest::string::string_regex(
                integer_pattern(1, u64::MAX as u128).trim_start_matches('^').trim_end_matches('$')
            ).unwrap()
        ) {
            let v: u64 = s.parse().unwrap();
            prop_assert!(v > 0);
        }
    }
}
