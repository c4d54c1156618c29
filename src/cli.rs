//! What the command-line tools (`src/bin/explore.rs`, `src/bin/find.rs`)
//! share in reading their arguments. The page never calls it, so none of
//! it is linked into the page's wasm.

/// The value after an option (`--name VALUE`), as text: a missing value
/// or one that is not UTF-8 is an error the tool prints as it is.
pub fn value(parser: &mut lexopt::Parser) -> Result<String, String> {
    parser
        .value()
        .map_err(|e| e.to_string())?
        .into_string()
        .map_err(|_| "an argument is not valid UTF-8".to_string())
}
