//! The Code view's listings: for each lock system, the client code a real
//! application runs (acquire, renew, the write carrying its fence,
//! release) in its most used client, and the resource's check for the
//! fencing the page models. Each system's listings live in its file
//! (`RealClient::client_code`, `resource_code`); the page's own resource's
//! are here. Drawn here, in the worker, so none of it is in the page's
//! first load.
//!
//! A listing is written one line a row, `op|text`: `op` names the
//! operation the line stands for (`crate::tools::code::Op`'s slug, one
//! line each), and the page marks, per client, the line of the operation
//! its client is in. A name of the client's API is written `@name@`; each
//! is in the listing's list of names beside it, with the file or page of
//! the client that defines it, so a call renamed here fails the tests.

use crate::markup::escape;
use crate::sim::{Backend, FenceRule, Listing};

/// The page's own resource, without fencing.
const FENCING_OFF: Listing = Listing {
    client: "the resource, fencing off",
    lang: "python",
    text: "\
|def write(value, token):
|    counter.apply(value)  # no check: a stale holder's write lands",
    api: &[],
};

/// The page's own resource, checking the highest token.
const HIGHEST: Listing = Listing {
    client: "the resource: the highest token",
    lang: "python",
    text: "\
|def write(value, token):
|    global highest
|    if token < highest:  # older than one already seen: a stale holder
|        raise Rejected(token, highest)
|    highest = token  # equal passes: one holder writes many times
|    counter.apply(value)
|# It knows only tokens it has seen: without B's write, nothing to compare.",
    api: &[],
};

/// The resource's side, for the fencing the page models: the system's
/// own, else the page's resource with fencing off or the highest token
/// (the rule a system is asked for only by a crafted request).
fn resource(system: Backend, fence: Option<FenceRule>) -> Listing {
    system.resource_code(fence).unwrap_or(match fence {
        None => FENCING_OFF,
        Some(_) => HIGHEST,
    })
}

/// The Code view's body: the client's listing, the resource's, and the
/// sources of the names they use.
pub fn body(system: Backend, kazoo: bool, fence: Option<FenceRule>, ttl_ms: u64) -> String {
    let (client, resource) = (system.client_code(kazoo), resource(system, fence));
    let mut out = String::new();
    draw(&mut out, &client, "Client", ttl_ms);
    draw(&mut out, &resource, "Resource", ttl_ms);
    let mut sources: Vec<&str> = client
        .api
        .iter()
        .chain(resource.api)
        .map(|&(_, url)| url)
        .collect();
    sources.sort_unstable();
    sources.dedup();
    out.push_str("<p class=\"code__sources\">Names checked against: ");
    for (i, url) in sources.iter().enumerate() {
        let short = url.trim_end_matches('/').rsplit('/').next().unwrap_or(url);
        let sep = if i == 0 { "" } else { ", " };
        out.push_str(&format!(
            "{sep}<a href=\"{0}\" target=\"_blank\" rel=\"noopener\">{1}</a>",
            escape(url),
            escape(short)
        ));
    }
    out.push_str("</p>");
    out
}

/// One listing as a labelled `<pre>`: each line a span with its
/// operation, and a gutter where the page shows the letters of the
/// clients at it.
fn draw(out: &mut String, listing: &Listing, role: &str, ttl_ms: u64) {
    let label = format!("{role} code: {}", listing.client);
    out.push_str(&format!(
        "<h3 class=\"code__title\">{}</h3><pre class=\"code__pre\" tabindex=\"0\" aria-label=\"{}\"><code class=\"language-{}\">",
        escape(&label),
        escape(&label),
        listing.lang
    ));
    let text = listing
        .text
        .replace("{ttl_ms}", &ttl_ms.to_string())
        .replace("{ttl_s}", &crate::words::seconds_in_code(ttl_ms));
    for row in text.lines() {
        let (op, line) = row.split_once('|').unwrap_or(("", row));
        match op {
            "" => out.push_str("<span class=\"code__l\">"),
            op => out.push_str(&format!("<span class=\"code__l\" data-op=\"{op}\">")),
        }
        out.push_str(GUTTER);
        draw_line(out, line);
        // Each line is a block: a newline here would show as a blank line.
        out.push_str("</span>");
    }
    out.push_str("</code></pre>");
}

/// The letters of the clients at a line, hidden until one is (the
/// worker's stylesheet shows them), and the arrow.
const GUTTER: &str = "<span class=\"code__g\"><span class=\"code__c\" data-c=\"a\">A</span><span class=\"code__c\" data-c=\"b\">B</span><span class=\"code__c\" data-c=\"c\">C</span><span class=\"code__c\" data-c=\"d\">D</span><span class=\"code__c\" data-c=\"at\">\u{25b8}</span> </span>";

/// A line's code, its API names marked, its comment muted.
fn draw_line(out: &mut String, line: &str) {
    let (code, comment) = split_comment(line);
    for (i, part) in code.split('@').enumerate() {
        if i % 2 == 1 {
            out.push_str(&format!(
                "<span class=\"code__api\">{}</span>",
                escape(part)
            ));
        } else {
            out.push_str(&escape(part));
        }
    }
    if !comment.is_empty() {
        let comment = comment.replace('@', "");
        out.push_str(&format!(
            "<span class=\"code__note\">{}</span>",
            escape(&comment)
        ));
    }
}

/// A line's code and its comment (`# `, `// ` or `-- `, at the line's start
/// or after a space).
fn split_comment(line: &str) -> (&str, &str) {
    let starts = ["# ", "// ", "-- "];
    let at = starts
        .iter()
        .filter_map(|s| {
            line.match_indices(s)
                .map(|(i, _)| i)
                .find(|&i| i == 0 || line[..i].ends_with(' ') || line[..i].ends_with('\t'))
        })
        .min();
    match at {
        Some(i) => line.split_at(i),
        None => (line, ""),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::code::Op;

    fn all_listings() -> Vec<(String, Listing)> {
        let mut all: Vec<(String, Listing)> = Backend::ALL
            .iter()
            .flat_map(|&b| [(b, false), (b, true)])
            .filter(|&(b, kazoo)| !kazoo || b == Backend::ZooKeeper)
            .map(|(b, kazoo)| (format!("{b:?} kazoo={kazoo}"), b.client_code(kazoo)))
            .collect();
        for fence in std::iter::once(None).chain(FenceRule::ALL.map(Some)) {
            for system in Backend::ALL {
                all.push((
                    format!("resource {system:?} {fence:?}"),
                    resource(system, fence),
                ));
            }
        }
        all
    }

    /// The names a listing marks as its client's API.
    fn marked(listing: &Listing) -> Vec<&'static str> {
        listing
            .text
            .lines()
            .flat_map(|l| l.split('@').skip(1).step_by(2))
            .collect()
    }

    #[test]
    fn every_api_name_in_a_listing_is_a_real_one_with_its_source() {
        for (name, listing) in all_listings() {
            let marked = marked(&listing);
            for used in &marked {
                assert!(
                    listing.api.iter().any(|(n, _)| n == used),
                    "{name}: `{used}` is not in its list of the client's names"
                );
            }
            for (api, source) in listing.api {
                assert!(marked.contains(api), "{name}: `{api}` is listed but unused");
                assert!(source.starts_with("https://"), "{name}: {api} has a source");
                assert!(
                    !api.is_empty() && api.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'),
                    "{name}: `{api}` is one identifier"
                );
            }
        }
    }

    #[test]
    fn each_client_listing_has_one_line_for_each_operation() {
        for (name, listing) in all_listings()
            .into_iter()
            .filter(|(n, _)| !n.starts_with("resource"))
        {
            for op in Op::ALL {
                let lines = listing
                    .text
                    .lines()
                    .filter(|l| l.split_once('|').map(|(o, _)| o) == Some(op.slug()))
                    .count();
                // PostgreSQL's session lock has no lease to renew.
                let want = usize::from(!(op == Op::Renew && name.starts_with("Postgres")));
                assert_eq!(lines, want, "{name}: lines for {op:?}");
            }
            for l in listing.text.lines() {
                let op = l.split_once('|').map(|(o, _)| o);
                assert!(
                    op.is_some_and(|o| o.is_empty() || Op::ALL.iter().any(|op| op.slug() == o)),
                    "{name}: a line with an unknown operation: {l}"
                );
            }
        }
    }

    #[test]
    fn the_body_escapes_code_and_marks_lines_for_the_page() {
        let html = body(Backend::Redis, false, Some(FenceRule::Highest), 5_000);
        assert!(html.contains("data-op=\"write\""));
        assert!(
            html.contains("SET lock:42 &lt;uuid&gt; NX PX 5000"),
            "{html}"
        );
        assert!(html.contains("timeout=5)"));
        assert!(html.contains("<span class=\"code__api\">extend</span>"));
        assert!(!html.contains('@'), "markers are gone");
        assert!(html.contains("aria-label=\"Client code: redis-py\""));
        assert!(html.contains("aria-label=\"Resource code: the resource: the highest token\""));
        assert!(html.contains("if token &lt; highest:"));
        assert!(
            html.contains("href=\"https://github.com/redis/redis-py/blob/master/redis/lock.py\"")
        );
        assert!(body(Backend::ZooKeeper, true, None, 2_500)
            .contains("KazooClient</span>(hosts=&quot;zk:2181&quot;, timeout=2.5)"));
        assert!(body(Backend::ZooKeeper, false, None, 5_000).contains("InterProcessMutex"));
    }

    #[test]
    fn comments_split_where_they_start() {
        assert_eq!(split_comment("a(1)  # b # c"), ("a(1)  ", "# b # c"));
        assert_eq!(split_comment("// all"), ("", "// all"));
        assert_eq!(split_comment("x = \"/lock//a\""), ("x = \"/lock//a\"", ""));
    }
}
