//! `einrow explain`: every code has a page, and every page's example, run as written, reports
//! that code (checked on the `--json` document, which is also validated against
//! `docs/diagnostics.schema.json`: one error or lint of each kind from each command).
#![cfg(feature = "cli")]

#[path = "support/binary.rs"]
mod binary;

use binary::schema;
use einrow::diagnostic::explain::PAGES;
use serde_json::Value;

#[test]
fn every_example_reports_its_code() {
    let schema = schema();
    let mut run = 0;
    for page in &PAGES {
        let Some(example) = page.example else {
            assert_eq!(page.code, "resource", "only `resource` may go without an example");
            continue;
        };
        let mut args = example.args.to_vec();
        args.push("--json");
        let (status, stdout, stderr) = binary::run(&args, example.stdin);
        assert_eq!(stderr, "", "{}: {args:?}", page.code);
        let doc: Value = serde_json::from_str(&stdout)
            .unwrap_or_else(|e| panic!("{}: {e}: {stdout}", page.code));
        let errors: Vec<String> = schema.iter_errors(&doc).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{}: {errors:?}", page.code);
        let codes: Vec<&str> = doc["diagnostics"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|d| d["code"].as_str())
            .collect();
        assert!(codes.contains(&page.code), "{}: {args:?} reported {codes:?}", page.code);
        // A lint warns and the command succeeds; an error fails it.
        let lint = einrow::diagnostic::Lint::from_name(page.code).is_some();
        assert_eq!(status == 0, lint, "{}: exit {status}", page.code);
        // The text the page prints is the same command.
        let (_, text, _) = binary::run(&["explain", page.code], None);
        assert!(text.starts_with(&format!("{}: ", page.code)), "{text}");
        assert!(text.contains("$ einrow "), "{text}");
        run += 1;
    }
    assert_eq!(run, PAGES.len() - 1);
}

#[test]
fn explain_lists_codes_and_suggests_a_near_one() {
    let (status, list, _) = binary::run(&["explain"], None);
    assert_eq!(status, 0);
    assert_eq!(list.lines().count(), PAGES.len(), "{list}");
    assert!(list.contains("mismatch          Sizes or bases"), "{list}");
    let (status, _, err) = binary::run(&["explain", "mismatchh"], None);
    assert_eq!(status, 1);
    assert!(err.contains("error[name]: no code `mismatchh`"), "{err}");
    assert!(err.contains("help: did you mean `mismatch`?"), "{err}");
    let (status, page, _) = binary::run(&["explain", "error[rank]"], None);
    assert_eq!(status, 0);
    assert!(page.starts_with("rank: Wrong number of axes"), "{page}");
}
