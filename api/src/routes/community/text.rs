//! What a comment's text and a display name may be. Text only: a comment is stored exactly as sent and the
//! page shows it as text (`textContent`), but markup is refused outright (`MARKUP_NOT_ALLOWED`) so that no
//! client that renders HTML can be fed any. Names are normalized (NFKC, trimmed, inner spaces collapsed),
//! unique case-insensitively, and refused when they are, or look like, a reserved word.

use crate::error::{ApiError, ErrorCode};
use unicode_normalization::char::is_combining_mark;
use unicode_normalization::UnicodeNormalization;

/// The longest comment, in characters (Unicode scalar values).
pub const MAX_COMMENT_CHARS: usize = 500;

/// A display name's length, in characters after normalization.
pub const NAME_CHARS: std::ops::RangeInclusive<usize> = 3..=24;

/// Whether `s` holds something a browser would read as markup: a tag (`<a`, `</a`), a comment or
/// declaration (`<!`), a processing instruction (`<?`): `<` directly followed by a letter, `/`, `!` or `?`, as
/// HTML's tokenizer reads a tag open. `a < b` and `<3` are text.
pub fn has_markup(s: &str) -> bool {
    let chars: Vec<char> = s.chars().collect();
    chars.iter().enumerate().any(|(i, c)| {
        (*c == '<' || *c == '\u{FF1C}')
            && chars
                .get(i + 1)
                .is_some_and(|n| n.is_alphabetic() || matches!(n, '/' | '!' | '?'))
    })
}

/// Checks a comment's text as posted (it is stored unchanged).
pub fn check_comment(text: &str) -> Result<(), ApiError> {
    if text.trim().is_empty() {
        return Err(ApiError::missing("text"));
    }
    let n = text.chars().count();
    if n > MAX_COMMENT_CHARS {
        return Err(ApiError::new(
            ErrorCode::TextTooLong,
            format!("`text` is {n} characters; at most {MAX_COMMENT_CHARS}"),
        ));
    }
    if has_markup(text) {
        return Err(ApiError::new(
            ErrorCode::MarkupNotAllowed,
            "`text` holds HTML or script markup; comments are plain text",
        ));
    }
    if text
        .chars()
        .any(|c| c.is_control() && c != '\n' && c != '\t')
    {
        return Err(ApiError::invalid(
            "`text` holds control characters (only line breaks and tabs are allowed)",
        ));
    }
    Ok(())
}

/// A name as shown (NFKC, trimmed, inner whitespace runs as one space) and its unique key (that, lowercased).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Name {
    pub display: String,
    pub key: String,
}

/// Words no display name may be or look like: anything whose skeleton ([`skeleton`]) contains one of these.
const RESERVED_WITHIN: &[&str] = &[
    "admin",
    "moderator",
    "support",
    "official",
    "launchpad",
    "operator",
    "staff",
    "pumpfun",
    "solana",
    "security",
    "system",
];

/// Short reserved words: refused when the whole skeleton is one of these.
const RESERVED_EXACT: &[&str] = &["mod", "root", "team", "help", "dev", "owner", "null"];

/// A name reduced to what it looks like: decomposed with diacritics dropped, lowercased, look-alike letters,
/// digits and symbols (Cyrillic and Greek homoglyphs, leetspeak) folded to one Latin letter, everything else
/// dropped, and `rn`/`vv` read as `m`/`w`. Two names with the same skeleton look alike.
pub fn skeleton(s: &str) -> String {
    let folded: String = s
        .nfkd()
        .filter(|c| !is_combining_mark(*c))
        .flat_map(char::to_lowercase)
        .filter_map(|c| {
            Some(match c {
                '0' | 'о' | 'ο' | 'օ' => 'o',
                '1' | 'i' | 'ı' | '|' | '!' | 'і' | 'ι' | 'ӏ' | 'l' => 'l',
                '3' | 'е' | 'ε' | 'є' => 'e',
                '4' | '@' | 'а' | 'α' => 'a',
                '5' | '$' | 'ѕ' => 's',
                '7' | '+' | 'т' | 'τ' => 't',
                '8' | 'в' | 'β' => 'b',
                '9' => 'g',
                '6' | 'б' => 'b',
                '2' => 'z',
                'р' | 'ρ' => 'p',
                'с' | 'ς' => 'c',
                'х' | 'χ' => 'x',
                'у' | 'γ' => 'y',
                'ј' => 'j',
                'ԁ' => 'd',
                'ո' | 'п' | 'η' => 'n',
                'м' | 'μ' => 'm',
                'к' | 'κ' => 'k',
                'ν' => 'v',
                'һ' => 'h',
                'ԝ' | 'ω' | 'ш' => 'w',
                'a'..='z' => c,
                _ => return None,
            })
        })
        .collect();
    folded.replace("rn", "m").replace("vv", "w")
}

/// Normalizes and checks a display name.
pub fn check_name(raw: &str) -> Result<Name, ApiError> {
    let nfkc: String = raw.nfkc().collect();
    let display = nfkc.split_whitespace().collect::<Vec<_>>().join(" ");
    if display.is_empty() {
        return Err(ApiError::missing("name"));
    }
    if has_markup(&display) {
        return Err(ApiError::new(
            ErrorCode::MarkupNotAllowed,
            "`name` holds HTML or script markup",
        ));
    }
    let n = display.chars().count();
    let allowed = |c: char| c.is_alphanumeric() || matches!(c, ' ' | '_' | '-' | '.');
    if !NAME_CHARS.contains(&n) || !display.chars().all(allowed) {
        return Err(ApiError::new(
            ErrorCode::InvalidDisplayName,
            format!(
                "`name` must be {} to {} letters, digits, spaces, `_`, `-` or `.` (after NFKC normalization)",
                NAME_CHARS.start(),
                NAME_CHARS.end()
            ),
        ));
    }
    let sk = skeleton(&display);
    let reserved = RESERVED_WITHIN
        .iter()
        .map(|w| skeleton(w))
        .any(|w| sk.contains(&w))
        || RESERVED_EXACT.iter().map(|w| skeleton(w)).any(|w| sk == w);
    if reserved {
        return Err(ApiError::new(
            ErrorCode::NameReserved,
            format!("`name` {display:?} is, or looks like, a reserved word"),
        ));
    }
    let key = display.to_lowercase();
    Ok(Name { display, key })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn markup_is_refused_and_text_with_angle_brackets_is_not() {
        for bad in [
            "<script>alert(1)</script>",
            "hi <b>there</b>",
            "<img src=x onerror=alert(1)>",
            "</p>",
            "<!-- x -->",
            "<?xml?>",
            "\u{FF1C}script>",
        ] {
            assert_eq!(
                check_comment(bad).unwrap_err().code,
                ErrorCode::MarkupNotAllowed,
                "{bad}"
            );
        }
        for ok in [
            "a < b",
            "<3 this",
            "1<2 and 3>2",
            "-> to the moon <-",
            "&lt;script&gt;",
        ] {
            assert_eq!(check_comment(ok), Ok(()), "{ok}");
        }
    }

    #[test]
    fn length_blank_and_controls() {
        assert_eq!(check_comment(&"é".repeat(500)), Ok(()));
        assert_eq!(
            check_comment(&"é".repeat(501)).unwrap_err().code,
            ErrorCode::TextTooLong
        );
        assert_eq!(
            check_comment("  \n ").unwrap_err().code,
            ErrorCode::MissingParams
        );
        assert_eq!(
            check_comment("a\u{0}b").unwrap_err().code,
            ErrorCode::InvalidParams
        );
        assert_eq!(check_comment("line\nline\tx"), Ok(()));
    }

    #[test]
    fn names_are_normalized_and_keyed_case_insensitively() {
        let n = check_name("  Ｄｅｇｅｎ   Ape ").unwrap();
        assert_eq!(n.display, "Degen Ape");
        assert_eq!(n.key, "degen ape");
        assert_eq!(check_name("DEGEN APE").unwrap().key, n.key);
        assert_eq!(
            check_name("ab").unwrap_err().code,
            ErrorCode::InvalidDisplayName
        );
        assert_eq!(
            check_name(&"a".repeat(25)).unwrap_err().code,
            ErrorCode::InvalidDisplayName
        );
        assert_eq!(
            check_name("bad/name").unwrap_err().code,
            ErrorCode::InvalidDisplayName
        );
        assert_eq!(
            check_name("<b>x</b>").unwrap_err().code,
            ErrorCode::MarkupNotAllowed
        );
    }

    #[test]
    fn reserved_words_and_their_look_alikes_are_refused() {
        for bad in [
            "admin",
            "Admin",
            "ADM1N",
            "аdmin",
            "adm\u{0131}n",
            "Ädmin",
            "the_admin_42",
            "Launchpad Team",
            "L4UNCHPAD",
            "0fficial",
            "Suppоrt",
            "m0d",
            "Solаna Labs",
            "rnoderator",
        ] {
            assert_eq!(
                check_name(bad).unwrap_err().code,
                ErrorCode::NameReserved,
                "{bad}"
            );
        }
        for ok in ["modern", "degen", "teamrocket", "Ape Lord", "Mõnkey"] {
            assert!(check_name(ok).is_ok(), "{ok}");
        }
    }

    proptest! {
        #[test]
        fn a_name_normalizes_to_a_fixed_point(s in "[a-zA-Z0-9 _.\\-]{3,24}") {
            if let Ok(n) = check_name(&s) {
                prop_assert_eq!(check_name(&n.display).map(|m| m.display), Ok(n.display.clone()));
                prop_assert_eq!(n.key, n.display.to_lowercase());
            }
        }

        #[test]
        fn text_without_a_tag_opener_is_never_markup(s in "[^<\u{FF1C}]{0,200}") {
            prop_assert!(!has_markup(&s));
        }
    }
}
