//! How `history` and `undo` print changes (`GET /api/v1/history`'s shape):
//! one line per change for people, an array with `--json`, rows with
//! `--tsv`.

use almanac_core::client::ClientError;
use almanac_core::client::failure::Exit;
use almanac_core::client::rows::{Format, for_terminal, tsv_cell};
use serde_json::Value;

/// Who made a change, as people read it.
fn author(change: &Value) -> String {
    let author = &change["author"];
    match author["kind"].as_str().unwrap_or_default() {
        "token" => format!("token “{}”", author["name"].as_str().unwrap_or_default()),
        "window" => "the window".into(),
        "cli" => "the command line".into(),
        other => other.to_string(),
    }
}

/// `created path, deleted path`.
fn files(change: &Value) -> String {
    let files = change["files"].as_array().cloned().unwrap_or_default();
    files
        .iter()
        .map(|file| {
            let action = file["action"].as_str().unwrap_or_default();
            format!("{action} {}", file["path"].as_str().unwrap_or_default())
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn undoes(change: &Value) -> String {
    change["undoes"]
        .as_u64()
        .map(|id| id.to_string())
        .unwrap_or_default()
}

/// The changes, in `format`.
pub fn render(changes: &[Value], format: Format) -> String {
    match format {
        Format::Json => format!("{}\n", Value::from(changes.to_vec())),
        Format::Tsv => {
            let mut out = String::from("id\tat\tauthor\tundoes\tfiles\n");
            for change in changes {
                out.push_str(&format!(
                    "{}\t{}\t{}\t{}\t{}\n",
                    change["id"],
                    change["at"].as_str().unwrap_or_default(),
                    tsv_cell(&author(change)),
                    undoes(change),
                    tsv_cell(&files(change)),
                ));
            }
            out
        }
        Format::Human => {
            let mut out = String::new();
            for change in changes {
                let undo = match change["undoes"].as_u64() {
                    Some(id) => format!(" (undoes {id})"),
                    None => String::new(),
                };
                out.push_str(&format!(
                    "{:>6}  {}  {}{undo}: {}\n",
                    change["id"],
                    change["at"].as_str().unwrap_or_default(),
                    author(change),
                    files(change),
                ));
            }
            out
        }
    }
}

/// `undo --token --since`'s answer: the undos made, then (failing) where
/// it stopped.
pub fn undone_since(report: &Value, format: Format) -> Result<String, ClientError> {
    let undone = report["undone"].as_array().cloned().unwrap_or_default();
    let out = render(&undone, format);
    match report["refused"].as_object() {
        None => Ok(out),
        Some(refused) => {
            // What was undone is printed; the refusal is the failure.
            match format {
                Format::Json => super::print(&out),
                Format::Human | Format::Tsv => super::print(&for_terminal(&out)),
            }
            Err(ClientError::new(
                Exit::Failed,
                format!(
                    "stopped at change {}: {}",
                    refused["id"],
                    refused["message"].as_str().unwrap_or_default()
                ),
            ))
        }
    }
}
