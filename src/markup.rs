//! Markup written as text: what the tools draw in the worker and the page
//! places (`ui::worker`), and the timeline's and event log's strings. One
//! place for escaping, so nothing a visitor typed is ever read as markup.

use crate::words::thousands;

/// Splits a drawing into parts the page places one by one: the page
/// places each part as markup of its own, so a part that did not change
/// keeps its elements, and a visitor's edits and focus in them.
pub const PART_BREAK: &str = "<!--part-->";

/// Text made safe to place in markup (HTML or SVG), inside elements or
/// quoted attributes.
pub fn escape(text: &str) -> String {
    // The five characters are ASCII, so every byte index at one is a char
    // boundary: the text between them is copied whole, not a char at a
    // time (most of what the worker escapes is its forms' own fixed words).
    let mut out = String::with_capacity(text.len());
    let mut plain = 0;
    for (i, byte) in text.bytes().enumerate() {
        let entity = match byte {
            b'&' => "&amp;",
            b'<' => "&lt;",
            b'>' => "&gt;",
            b'"' => "&quot;",
            b'\'' => "&#39;",
            _ => continue,
        };
        out.push_str(&text[plain..i]);
        out.push_str(entity);
        plain = i + 1;
    }
    out.push_str(&text[plain..]);
    out
}

/// A `data:` URL of `text`, ready for a quoted attribute: only what a URL
/// or the markup would misread is escaped (`%`, `#`, line breaks and tabs,
/// which URLs drop, then the markup's own).
pub fn data_url(mime: &str, text: &str) -> String {
    let mut url = String::with_capacity(text.len() + 32);
    url.push_str("data:");
    url.push_str(mime);
    url.push_str(";charset=utf-8,");
    for c in text.chars() {
        match c {
            '%' => url.push_str("%25"),
            '#' => url.push_str("%23"),
            '\n' => url.push_str("%0A"),
            '\r' => url.push_str("%0D"),
            '\t' => url.push_str("%09"),
            c => url.push(c),
        }
    }
    escape(&url)
}

/// An export's drawing (see `exported_html`): `title`, the file's `name`
/// and `mime`, the text, and the text box's accessible name.
pub fn export_html(title: &str, name: &str, mime: &str, text: &str, label: &str) -> String {
    let name = escape(name);
    format!(
        r#"<div class="export"><p class="export__said">{}: {} bytes, {} lines.</p><p class="export__actions"><a class="button" download="{name}" href="{}">Download {name}</a> <button type="button" class="button" data-copy>Copy</button> <span class="export__copied" role="status"></span></p><textarea class="export__text" readonly rows="8" aria-label="{}">{}</textarea></div>"#,
        escape(title),
        thousands(text.len() as u64),
        thousands(text.lines().count() as u64),
        data_url(mime, text),
        escape(label),
        escape(text)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_replaces_the_five_characters_and_keeps_the_rest_whole() {
        assert_eq!(
            escape("é<b a=\"x\">'&'</b>ü"),
            "é&lt;b a=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/b&gt;ü"
        );
        assert_eq!(escape(""), "");
        assert_eq!(escape("plain words, 30 s"), "plain words, 30 s");
        assert_eq!(escape("&&"), "&amp;&amp;");
    }
}
