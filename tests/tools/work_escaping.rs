#![cfg(not(target_arch = "wasm32"))]
//! Escaping as a property: every field of the explorer's form that the
//! worker echoes into markup (the text fields' values, an unknown choice
//! kept in its select, the refusals that name what was typed), filled
//! with arbitrary text from a link, yields markup whose text for that
//! field is the input, and which creates no element or attribute that the
//! same form with a plain value does not have. The markup is read with a
//! small tokenizer that splits it as a browser would at `<`, `>`, quotes
//! and `&`.

use distlock::markup::PART_BREAK;
use distlock::work::{Job, Reply, Request, Station, PROTOCOL_VERSION};
use proptest::prelude::*;

/// The form's text fields and its choices (selects), by query name.
const TEXT_FIELDS: &[&str] = &[
    "hold",
    "think",
    "rate",
    "per-hour",
    "median",
    "p99",
    "ttls",
    "values",
    "trials",
    "seed",
    "partitions",
    "exits",
    "host-deaths",
    "losses",
    "node-restarts",
    "node-jumps",
    "fault-max",
];
const CHOICES: &[&str] = &[
    "system",
    "fencing",
    "renewal",
    "check",
    "clients",
    "pauses",
    "axis",
    "keepalives",
];

/// One piece of markup: a tag with its attributes, or text.
#[derive(Debug, Clone, PartialEq)]
enum Token {
    Open(String, Vec<(String, String)>),
    Close(String),
    Text(String),
}

/// `&amp;` and the other entities the worker writes, read back.
fn unescape(text: &str) -> String {
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

/// Splits markup as a browser's tokenizer would for what the worker
/// writes: comments, tags with double-quoted, single-quoted or bare
/// attribute values, and text between them.
fn tokens(markup: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let mut rest = markup;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix("<!--") {
            rest = after.split_once("-->").map_or("", |(_, r)| r);
            continue;
        }
        if rest.starts_with('<')
            && rest[1..].starts_with(|c: char| c.is_ascii_alphabetic() || c == '/')
        {
            let (token, after) = tag(&rest[1..]);
            out.push(token);
            rest = after;
            continue;
        }
        let end = rest[1..].find('<').map_or(rest.len(), |i| i + 1);
        out.push(Token::Text(unescape(&rest[..end])));
        rest = &rest[end..];
    }
    out
}

/// One tag after its `<`: the token and what follows its `>`.
fn tag(s: &str) -> (Token, &str) {
    let name_end = s
        .find(|c: char| c.is_whitespace() || c == '>' || c == '/' && !s.starts_with('/'))
        .unwrap_or(s.len());
    let name = s[..name_end].to_ascii_lowercase();
    let mut rest = &s[name_end..];
    let mut attrs = Vec::new();
    loop {
        rest = rest.trim_start_matches(|c: char| c.is_whitespace() || c == '/');
        if rest.is_empty() {
            break;
        }
        if let Some(after) = rest.strip_prefix('>') {
            rest = after;
            break;
        }
        let end = rest
            .find(|c: char| c.is_whitespace() || c == '=' || c == '>' || c == '/')
            .unwrap_or(rest.len())
            .max(1);
        let key = rest[..end].to_ascii_lowercase();
        rest = &rest[end..];
        let mut value = String::new();
        if let Some(after) = rest.trim_start().strip_prefix('=') {
            let after = after.trim_start();
            let (v, r) = match after.chars().next() {
                Some(q @ ('"' | '\'')) => {
                    let body = &after[1..];
                    let close = body.find(q).unwrap_or(body.len());
                    (&body[..close], body.get(close + 1..).unwrap_or(""))
                }
                _ => {
                    let close = after
                        .find(|c: char| c.is_whitespace() || c == '>')
                        .unwrap_or(after.len());
                    (&after[..close], &after[close..])
                }
            };
            value = unescape(v);
            rest = r;
        }
        attrs.push((key, value));
    }
    match name.strip_prefix('/') {
        Some(closed) => (Token::Close(closed.to_string()), rest),
        None => (Token::Open(name, attrs), rest),
    }
}

/// Elements and attribute names only: what injection would change.
fn shape(tokens: &[Token]) -> Vec<String> {
    tokens
        .iter()
        .filter_map(|t| match t {
            Token::Open(name, attrs) => {
                let names: Vec<&str> = attrs.iter().map(|(k, _)| k.as_str()).collect();
                Some(format!("<{name} {}>", names.join(" ")))
            }
            Token::Close(name) => Some(format!("</{name}>")),
            Token::Text(_) => None,
        })
        .collect()
}

/// Every byte percent-encoded, as a link would carry any text.
fn encoded(text: &str) -> String {
    text.bytes().map(|b| format!("%{b:02X}")).collect()
}

/// The form's first drawing for `name=value`, from the worker, as markup.
fn drawing(name: &str, value: &str) -> String {
    let request = Request {
        v: PROTOCOL_VERSION,
        id: 1,
        job: Job::ExploreForm {
            query: format!("?explore&{}{name}={}", custom(name), encoded(value)),
        },
    };
    let mut replies = Vec::new();
    Station::new(1).from_page(
        &serde_json::to_string(&request).unwrap(),
        &|| 0.0,
        &mut |text| replies.push(Reply::read(&text).expect("the page reads the reply")),
        &mut |_| {},
    );
    assert_eq!(replies.len(), 1);
    replies.remove(0).html.replace(PART_BREAK, "")
}

/// The custom profile's fields are read when the profile is custom.
fn custom(name: &str) -> &'static str {
    match name {
        "per-hour" | "median" | "p99" => "pauses=custom&",
        _ => "",
    }
}

/// The value attribute of the input named `name`.
fn input_value(tokens: &[Token], name: &str) -> Option<String> {
    tokens.iter().find_map(|t| match t {
        Token::Open(tag, attrs) if tag == "input" => {
            let named = attrs.iter().any(|(k, v)| k == "name" && v == name);
            let value = attrs.iter().find(|(k, _)| k == "value");
            named.then(|| value.map(|(_, v)| v.clone())).flatten()
        }
        _ => None,
    })
}

/// The selected option's value and text in the select named `name`.
fn selected(tokens: &[Token], name: &str) -> Option<(String, String)> {
    let start = tokens.iter().position(|t| {
        matches!(t, Token::Open(tag, attrs) if tag == "select" && attrs.iter().any(|(k, v)| k == "name" && v == name))
    })?;
    let mut it = tokens[start..].iter();
    while let Some(t) = it.next() {
        if let Token::Open(tag, attrs) = t {
            if tag == "option" && attrs.iter().any(|(k, _)| k == "selected") {
                let value = attrs.iter().find(|(k, _)| k == "value")?.1.clone();
                let text = match it.next() {
                    Some(Token::Text(text)) => text.clone(),
                    _ => String::new(),
                };
                return Some((value, text));
            }
        }
    }
    None
}

/// The refusals' text, as the alert shows it.
fn alert_text(tokens: &[Token]) -> String {
    let start = tokens
        .iter()
        .position(|t| matches!(t, Token::Open(_, attrs) if attrs.iter().any(|(k, v)| k == "role" && v == "alert")));
    start.map_or(String::new(), |start| {
        tokens[start..]
            .iter()
            .filter_map(|t| match t {
                Token::Text(text) => Some(text.as_str()),
                _ => None,
            })
            .collect()
    })
}

/// Text a visitor could bring: anything, or markup and quotes on purpose.
/// It starts with a letter no field or choice takes, so it is always
/// refused and the drawing always has the same parts.
fn hostile() -> impl Strategy<Value = String> {
    let markup = prop::collection::vec(
        prop_oneof![
            Just("<".to_string()),
            Just(">".to_string()),
            Just("\"".to_string()),
            Just("'".to_string()),
            Just("&".to_string()),
            Just("&amp;".to_string()),
            Just("=".to_string()),
            Just("<!--".to_string()),
            Just("-->".to_string()),
            Just("<script>alert(1)</script>".to_string()),
            Just("\"><svg onload=alert(1)>".to_string()),
            Just("<img src=x onerror=alert(1)>".to_string()),
            Just(" onfocus=x ".to_string()),
            "[a-z ]{0,4}",
        ],
        0..8,
    )
    .prop_map(|parts| parts.concat());
    prop_oneof![any::<String>(), markup].prop_map(|tail| format!("q{tail}"))
}

/// What a refusal shows of typed text: trimmed, control characters as spaces.
fn as_named(text: &str) -> String {
    text.trim()
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn a_text_field_echoes_any_text_as_text(text in hostile(), field in 0..TEXT_FIELDS.len()) {
        let name = TEXT_FIELDS[field];
        let got = tokens(&drawing(name, &text));
        let plain = tokens(&drawing(name, "q"));
        prop_assert_eq!(shape(&got), shape(&plain), "{}={:?} changed the markup's elements", name, text);
        prop_assert_eq!(input_value(&got, name), Some(text.clone()));
        // The refusal names the text (lists name their first bad value).
        let first = text.split(',').next().unwrap_or_default();
        let named = if matches!(name, "ttls" | "values") { as_named(first) } else { as_named(&text) };
        let quoted = format!("\"{named}\"");
        prop_assert!(alert_text(&got).contains(&quoted), "{:?} not named in {:?}", named, alert_text(&got));
    }

    #[test]
    fn an_unknown_choice_is_kept_as_text_and_refused(text in hostile(), field in 0..CHOICES.len()) {
        let name = CHOICES[field];
        let got = tokens(&drawing(name, &text));
        let plain = tokens(&drawing(name, "q"));
        prop_assert_eq!(shape(&got), shape(&plain), "{}={:?} changed the markup's elements", name, text);
        let (value, words) = selected(&got, name).expect("the unknown choice is selected");
        prop_assert_eq!(&value, &text);
        prop_assert_eq!(words, format!("{text} (not one of the choices)"));
        let named: String = text.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
        let quoted = format!("\"{named}\"");
        prop_assert!(alert_text(&got).contains(&quoted));
    }
}

#[test]
fn the_tokenizer_sees_injected_markup() {
    // The property's check can fail: unescaped text makes new elements.
    let safe = tokens(r#"<p class="a">x &lt;b&gt; &quot;</p>"#);
    let unsafe_ = tokens(r#"<p class="a">x <b onclick=y>"</p>"#);
    assert_ne!(shape(&safe), shape(&unsafe_));
    assert_eq!(shape(&safe), ["<p class>", "</p>"]);
    let broken_attr = tokens(r#"<input value="a" onfocus="x">"#);
    assert_eq!(shape(&broken_attr), ["<input value onfocus>"]);
}
