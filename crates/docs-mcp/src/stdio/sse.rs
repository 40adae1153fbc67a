//! Just enough of Server-Sent Events for the bridge: the `data` of each event of a streamed
//! answer of the MCP endpoint.

/// Just enough of an SSE parser: the `data` of each event, joined by newlines.
#[derive(Debug, Default)]
pub(super) struct SseParser {
    buffer: Vec<u8>,
    data: Vec<String>,
}

impl SseParser {
    pub(super) fn push(&mut self, chunk: &[u8]) -> Vec<String> {
        self.buffer.extend_from_slice(chunk);
        let mut events = Vec::new();
        while let Some(end) = self.buffer.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = self.buffer.drain(..=end).collect();
            let line = String::from_utf8_lossy(&line);
            let line = line.trim_end_matches(['\n', '\r']);
            self.line(line, &mut events);
        }
        events
    }

    fn line(&mut self, line: &str, events: &mut Vec<String>) {
        if line.is_empty() {
            if !self.data.is_empty() {
                let data = self.data.join("\n");
                self.data.clear();
                if !data.trim().is_empty() {
                    events.push(data);
                }
            }
            return;
        }
        if line.starts_with(':') {
            return;
        }
        let (field, value) = line.split_once(':').unwrap_or((line, ""));
        if field == "data" {
            self.data
                .push(value.strip_prefix(' ').unwrap_or(value).to_owned());
        }
    }

    pub(super) fn finish(&mut self) -> Vec<String> {
        let mut events = Vec::new();
        let rest = std::mem::take(&mut self.buffer);
        if !rest.is_empty() {
            let line = String::from_utf8_lossy(&rest).into_owned();
            self.line(line.trim_end_matches('\r'), &mut events);
        }
        self.line("", &mut events);
        events
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sse_parser_splits_events_across_chunks() {
        let mut parser = SseParser::default();
        assert!(parser.push(b"id: 0\nretry: 3000\ndata:\n\n").is_empty());
        assert!(parser.push(b": keep-alive\n\ndata: {\"a\"").is_empty());
        assert_eq!(
            parser.push(b":1}\r\n\r\ndata: x\ndata: y\n"),
            vec!["{\"a\":1}"]
        );
        assert_eq!(parser.finish(), vec!["x\ny"]);
    }
}
