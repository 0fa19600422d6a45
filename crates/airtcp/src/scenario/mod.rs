//! Scenario files: the serde model (`model`), parsing with field paths in errors, and the
//! semantic checks (`validate`) that a type cannot express (ranges, references, routes).

mod limits;
pub(crate) mod model;
// The one implementation of `--set` overrides: the Python package calls it through `_core`
// (so it is not behind the `testing` feature), the Rust tests derive scenario variants with it;
// a run itself reads none of it.
pub mod overrides;
pub(crate) mod plan;
pub(crate) mod validate;

pub use model::*;

pub use crate::net::capacity::trace::TRACE_FILE_MAX_BYTES;
pub use crate::spec::ScenarioError;
pub use limits::{MemoryEstimate, UE_STATE_BYTES};

/// The engine's up-front memory estimate of a valid scenario, by part: what `limits.max_memory`
/// is checked against before anything is built (as `Simulator::build` computes it, one entry
/// per link direction). For tests that pin the estimate to the structures it counts; a run
/// needs none of it.
#[cfg(feature = "testing")]
pub fn memory_estimate(s: &Scenario) -> Result<MemoryEstimate, ScenarioError> {
    let plan = validate::validate_and_load(s)?;
    let one_way = s.links.iter().map(|l| if l.duplex { 2 } else { 1 }).sum();
    Ok(limits::memory_estimate(s, one_way, &plan))
}

/// 1-based line of byte offset `pos` in `text`.
fn line_of(text: &str, pos: usize) -> usize {
    text[..pos.min(text.len())].bytes().filter(|&b| b == b'\n').count() + 1
}

/// Collapses a possibly multi-line message into one line.
fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Parses scenario text into a [`Scenario`]; errors name the field path (e.g. `links[1].rate`).
/// Types and units are checked here; ranges, references and routes by `validate::validate_and_load`,
/// which `Simulator::build` runs (once) before building.
pub fn parse(text: &str) -> Result<Scenario, ScenarioError> {
    let de = toml::Deserializer::parse(text).map_err(|e| {
        let loc = e.span().map(|s| format!(" (line {})", line_of(text, s.start))).unwrap_or_default();
        ScenarioError { message: format!("scenario{loc}: {}", one_line(e.message())) }
    })?;
    let scenario: Scenario = serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        let mut msg = one_line(inner.message());
        let loc = inner.span().map(|s| format!(" (line {})", line_of(text, s.start))).unwrap_or_default();
        // An error inside a `kind`-tagged table carries its own inner path: append it.
        let mut path = path;
        if let Some(rest) = msg.strip_prefix(crate::spec::INNER_PATH_MARK) {
            if let Some((inner_path, m)) = rest.split_once(": ") {
                path = if path.is_empty() || path == "." { inner_path.to_string() } else { format!("{path}.{inner_path}") };
                msg = m.to_string();
            }
        }
        if path.is_empty() || path == "." {
            // A missing top-level key has the whole document as its span: no useful line.
            let loc = if msg.starts_with("missing field") { String::new() } else { loc };
            ScenarioError { message: format!("scenario{loc}: {msg}") }
        } else {
            ScenarioError { message: format!("{path}{loc}: {msg}") }
        }
    })?;
    Ok(scenario)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A message that echoes a name with line breaks still displays as one line (fuzzing finding,
    /// issue 25 part 6); the message itself keeps the name as written.
    #[test]
    fn display_is_one_line() {
        let e = ScenarioError::new("links[0].from", "unknown node 'x\ny\r\u{85}\u{2028}z' (known nodes: a\tb)");
        assert_eq!(e.to_string(), "links[0].from: unknown node 'x\\ny\\r\\u{85}\\u{2028}z' (known nodes: a\tb)");
        assert!(e.message.contains('\n'));
        let plain = ScenarioError::new("duration", "must be greater than 0s");
        assert_eq!(plain.to_string(), plain.message);
        let text =
            "duration = \"1s\"\nnodes = [\"a\\nb\"]\n[[links]]\nfrom = \"x\\ny\"\nto = \"a\\nb\"\nrate = \"1Mbps\"\ndelay = \"1ms\"\n";
        let shown = crate::run(text, &crate::RunOptions { check_only: true, ..Default::default() }).map(|_| ()).unwrap_err().to_string();
        assert_eq!(shown.lines().count(), 1, "{shown}");
        assert!(shown.contains("'x\\ny'"), "{shown}");
    }
}
