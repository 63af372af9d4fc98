//! Server-sent events cut from an HTTP body as it arrives, for the
//! `almanac mcp` bridge: an event ends at a blank line, and its bytes are
//! decoded as UTF-8 only once it is whole, so a character split between two
//! chunks arrives intact. What waits for its blank line is bounded.

/// The most one event may hold: a year's listing is a few megabytes; past
/// this the stream is refused rather than buffered without end.
pub const MAX_EVENT_BYTES: usize = 32 * 1024 * 1024;

/// The events of one stream, fed chunk by chunk.
#[derive(Debug, Default)]
pub struct SseEvents {
    pending: Vec<u8>,
    /// How much of `pending` is known to hold no blank line: each byte is
    /// searched once, however many chunks an event comes in.
    searched: usize,
}

impl SseEvents {
    /// Takes `chunk` and returns the `data` of every event it completed (the
    /// `data:` lines joined by newlines; events without data are left out).
    /// An event growing past [`MAX_EVENT_BYTES`] is an error.
    pub fn push(&mut self, chunk: &[u8]) -> Result<Vec<String>, String> {
        self.pending.extend_from_slice(chunk);
        let mut events = Vec::new();
        loop {
            // A blank line may have begun in the last bytes searched.
            let from = self.searched.saturating_sub(3);
            let Some((end, blank)) = blank_line(&self.pending[from..]) else {
                self.searched = self.pending.len();
                break;
            };
            let end = from + end;
            let event: Vec<u8> = self.pending.drain(..end + blank).collect();
            self.searched = 0;
            let data = data_of(&String::from_utf8_lossy(&event[..end]));
            if !data.trim().is_empty() {
                events.push(data);
            }
        }
        if self.pending.len() > MAX_EVENT_BYTES {
            *self = SseEvents::default();
            return Err(format!(
                "an event of the answer stream passed {MAX_EVENT_BYTES} bytes"
            ));
        }
        Ok(events)
    }
}

/// Where the first event in `bytes` ends, and the length of the blank line
/// that ends it (`\n\n`, `\r\n\r\n` or `\r\r`).
fn blank_line(bytes: &[u8]) -> Option<(usize, usize)> {
    [&b"\r\n\r\n"[..], b"\n\n", b"\r\r"]
        .iter()
        .filter_map(|blank| {
            let at = bytes.windows(blank.len()).position(|w| w == *blank)?;
            Some((at, blank.len()))
        })
        .min()
}

/// The `data:` lines of one event, joined as the spec joins them.
fn data_of(event: &str) -> String {
    event
        .split(['\n', '\r'])
        .filter_map(|line| line.strip_prefix("data:"))
        .map(|data| data.strip_prefix(' ').unwrap_or(data))
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_character_split_between_chunks_arrives_whole() {
        let body = "event: message\r\ndata: {\"title\":\"Café ☕ 𝄞\"}\r\n\r\ndata: two\n\n";
        let bytes = body.as_bytes();
        // Every cut, including inside each multi-byte character.
        for cut in 1..bytes.len() {
            let mut events = SseEvents::default();
            let mut got = events.push(&bytes[..cut]).unwrap();
            got.extend(events.push(&bytes[cut..]).unwrap());
            assert_eq!(got, ["{\"title\":\"Café ☕ 𝄞\"}", "two"], "cut at {cut}");
        }
    }

    #[test]
    fn multi_line_data_joins_and_comments_are_left_out() {
        let mut events = SseEvents::default();
        let got = events
            .push(b": keep-alive\n\ndata: a\ndata: b\n\n")
            .unwrap();
        assert_eq!(got, ["a\nb"]);
    }

    #[test]
    fn an_event_without_end_is_bounded() {
        let mut events = SseEvents::default();
        let chunk = vec![b'x'; 1024 * 1024];
        let mut refused = None;
        for _ in 0..=MAX_EVENT_BYTES / chunk.len() {
            if let Err(why) = events.push(&chunk) {
                refused = Some(why);
                break;
            }
        }
        assert!(refused.unwrap().contains("bytes"));
        assert!(events.pending.is_empty(), "what was buffered is let go");
    }
}
