//! The collaboration servers' wire formats — the only module that knows them.
//!
//! Every WebSocket message is binary, with lib0 encodings: `varUint(type) · payload`, which
//! Hocuspocus prefixes with `varString(documentName)` (one socket may carry several
//! documents) and y-websocket servers (yhub) send bare (one socket per document). The
//! y-protocols sync payload is decoded here too, so the session deals in typed [`Message`]s
//! only.
//!
//! `Wire::Hocuspocus`: messages prefixed with the document's name (auth, sync, SyncStatus, CLOSE);
//! `Wire::YWebsocket`: bare sync, awareness and y-protocols' auth. The tests hold golden bytes
//! recorded from the JS implementations.

use yrs::StateVector;
use yrs::encoding::read::{Cursor, Read};
use yrs::encoding::write::Write;
use yrs::updates::decoder::Decode;
use yrs::updates::encoder::Encode;

use crate::error::Error;

const SYNC: u32 = 0;
const AWARENESS: u32 = 1;
const AUTH: u32 = 2;
const QUERY_AWARENESS: u32 = 3;
/// Same payload as `SYNC`; the server uses it for the Step1 it sends after its Step2.
const SYNC_REPLY: u32 = 4;
const STATELESS: u32 = 5;
const CLOSE: u32 = 7;
const SYNC_STATUS: u32 = 8;

const SYNC_STEP1: u32 = 0;
const SYNC_STEP2: u32 = 1;
const SYNC_UPDATE: u32 = 2;

const AUTH_TOKEN: u32 = 0;
/// y-protocols' `auth` message has one sub-type, at 0 (Hocuspocus numbers its own).
const Y_AUTH_PERMISSION_DENIED: u32 = 0;
const AUTH_PERMISSION_DENIED: u32 = 1;
const AUTH_AUTHENTICATED: u32 = 2;

/// The y-protocols sync sub-messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Sync {
    Step1(StateVector),
    Step2(Vec<u8>),
    Update(Vec<u8>),
}

/// One Hocuspocus message, in either direction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Message {
    Sync(Sync),
    /// An encoded y-protocols awareness update.
    Awareness(Vec<u8>),
    /// Client → server: the (possibly empty) token. Docs authenticates by cookie instead.
    AuthToken(String),
    PermissionDenied(String),
    /// `read_only` is true for the scope "readonly".
    Authenticated {
        read_only: bool,
    },
    QueryAwareness,
    Stateless(String),
    /// Server → client: this document's session on the socket has ended.
    Close(String),
    /// Server → client: `true` = the Step2/Update was applied, `false` = refused (read-only).
    SyncStatus(bool),
}

/// A message addressed to one document of the socket.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    pub document: String,
    pub message: Message,
}

impl Frame {
    pub fn new(document: impl Into<String>, message: Message) -> Self {
        Frame {
            document: document.into(),
            message,
        }
    }

    pub fn encode(&self) -> Vec<u8> {
        let mut out: Vec<u8> = Vec::new();
        out.write_string(&self.document);
        self.message.encode_into(&mut out);
        out
    }

    /// Decodes a message. Unknown message types are an error the caller may ignore.
    pub fn decode(bytes: &[u8]) -> Result<Frame, Error> {
        let mut cur = Cursor::new(bytes);
        let document = read_text(&mut cur, "document name")?;
        let message = Message::decode_from(&mut cur)?;
        Ok(Frame { document, message })
    }
}

fn bad(detail: String) -> Error {
    Error::Protocol { detail }
}

impl Message {
    fn encode_into(&self, out: &mut Vec<u8>) {
        match self {
            Message::Sync(sync) => {
                out.write_var(SYNC);
                match sync {
                    Sync::Step1(sv) => {
                        out.write_var(SYNC_STEP1);
                        out.write_buf(sv.encode_v1());
                    }
                    Sync::Step2(update) => {
                        out.write_var(SYNC_STEP2);
                        out.write_buf(update);
                    }
                    Sync::Update(update) => {
                        out.write_var(SYNC_UPDATE);
                        out.write_buf(update);
                    }
                }
            }
            Message::Awareness(update) => {
                out.write_var(AWARENESS);
                out.write_buf(update);
            }
            Message::AuthToken(token) => {
                out.write_var(AUTH);
                out.write_var(AUTH_TOKEN);
                out.write_string(token);
            }
            Message::PermissionDenied(reason) => {
                out.write_var(AUTH);
                out.write_var(AUTH_PERMISSION_DENIED);
                out.write_string(reason);
            }
            Message::Authenticated { read_only } => {
                out.write_var(AUTH);
                out.write_var(AUTH_AUTHENTICATED);
                out.write_string(if *read_only { "readonly" } else { "read-write" });
            }
            Message::QueryAwareness => out.write_var(QUERY_AWARENESS),
            Message::Stateless(payload) => {
                out.write_var(STATELESS);
                out.write_string(payload);
            }
            Message::Close(reason) => {
                out.write_var(CLOSE);
                out.write_string(reason);
            }
            Message::SyncStatus(applied) => {
                out.write_var(SYNC_STATUS);
                out.write_var(u32::from(*applied));
            }
        }
    }

    /// Decodes a Hocuspocus message (after its document name).
    fn decode_from(cur: &mut Cursor<'_>) -> Result<Message, Error> {
        let kind = read_var(cur, "type")?;
        let message = match kind {
            SYNC | SYNC_REPLY => Message::Sync(decode_sync(cur)?),
            AWARENESS => Message::Awareness(read_bytes(cur, "awareness")?),
            AUTH => {
                let sub = read_var(cur, "auth")?;
                let text = read_text(cur, "auth payload")?;
                match sub {
                    AUTH_TOKEN => Message::AuthToken(text),
                    AUTH_PERMISSION_DENIED => Message::PermissionDenied(text),
                    AUTH_AUTHENTICATED => Message::Authenticated {
                        read_only: text == "readonly",
                    },
                    other => return Err(bad(format!("unknown auth message {other}"))),
                }
            }
            QUERY_AWARENESS => Message::QueryAwareness,
            STATELESS => Message::Stateless(read_text(cur, "stateless")?),
            CLOSE => Message::Close(read_text(cur, "close")?),
            SYNC_STATUS => Message::SyncStatus(read_var(cur, "status")? == 1),
            other => return Err(bad(format!("unknown message type {other}"))),
        };
        Ok(message)
    }

    /// Decodes a bare y-websocket message: sync, awareness, y-protocols' auth (permission
    /// denied) and awareness queries are all it has.
    fn decode_y_websocket(cur: &mut Cursor<'_>) -> Result<Message, Error> {
        let kind = read_var(cur, "type")?;
        Ok(match kind {
            SYNC => Message::Sync(decode_sync(cur)?),
            AWARENESS => Message::Awareness(read_bytes(cur, "awareness")?),
            AUTH => {
                let sub = read_var(cur, "auth")?;
                if sub != Y_AUTH_PERMISSION_DENIED {
                    return Err(bad(format!("unknown auth message {sub}")));
                }
                Message::PermissionDenied(read_text(cur, "auth payload")?)
            }
            QUERY_AWARENESS => Message::QueryAwareness,
            other => return Err(bad(format!("unknown message type {other}"))),
        })
    }
}

fn read_var(cur: &mut Cursor<'_>, what: &str) -> Result<u32, Error> {
    cur.read_var().map_err(|e| bad(format!("{what}: {e}")))
}

fn read_bytes(cur: &mut Cursor<'_>, what: &str) -> Result<Vec<u8>, Error> {
    Ok(cur
        .read_buf()
        .map_err(|e| bad(format!("{what}: {e}")))?
        .to_vec())
}

fn read_text(cur: &mut Cursor<'_>, what: &str) -> Result<String, Error> {
    Ok(cur
        .read_string()
        .map_err(|e| bad(format!("{what}: {e}")))?
        .to_owned())
}

fn decode_sync(cur: &mut Cursor<'_>) -> Result<Sync, Error> {
    let sub = read_var(cur, "sync")?;
    let payload = read_bytes(cur, "sync payload")?;
    Ok(match sub {
        SYNC_STEP1 => Sync::Step1(
            StateVector::decode_v1(&payload).map_err(|e| bad(format!("state vector: {e}")))?,
        ),
        SYNC_STEP2 => Sync::Step2(payload),
        SYNC_UPDATE => Sync::Update(payload),
        other => return Err(bad(format!("unknown sync message {other}"))),
    })
}

/// How one document's messages travel on its socket.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Wire {
    /// Hocuspocus (Docs 5 and before): every message names its document.
    Hocuspocus { document: String },
    /// y-websocket, as yhub speaks it: the socket is the document's, messages are bare.
    YWebsocket,
}

impl Wire {
    /// A message as sent on the socket. y-websocket has no Hocuspocus-only messages (Auth,
    /// Stateless, Close, SyncStatus): the session never sends them there.
    pub fn encode(&self, message: &Message) -> Vec<u8> {
        let mut out = Vec::new();
        if let Wire::Hocuspocus { document } = self {
            out.write_string(document);
        }
        message.encode_into(&mut out);
        out
    }

    /// A message received on the socket; `None` when it is for another document.
    pub fn decode(&self, bytes: &[u8]) -> Result<Option<Message>, Error> {
        match self {
            Wire::Hocuspocus { document } => {
                let frame = Frame::decode(bytes)?;
                Ok((frame.document == *document).then_some(frame.message))
            }
            Wire::YWebsocket => Message::decode_y_websocket(&mut Cursor::new(bytes)).map(Some),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = "d1b2c3d4-0000-4000-8000-000000000001";

    fn hex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    fn prefixed(rest: &str) -> Vec<u8> {
        let mut v = vec![DOC.len() as u8];
        v.extend_from_slice(DOC.as_bytes());
        v.extend(hex(rest));
        v
    }

    /// Bytes written by the real JavaScript implementation (`@hocuspocus/server` 3.4.4
    /// `OutgoingMessage`, and the provider's `writeAuthentication`), minus the name prefix.
    const FIXTURES: &[(&str, &str)] = &[
        ("auth_empty_token", "020000"),
        ("authenticated_read_write", "02020a726561642d7772697465"),
        ("authenticated_readonly", "020208726561646f6e6c79"),
        (
            "permission_denied",
            "0201117065726d697373696f6e2d64656e696564",
        ),
        ("sync_status_ok", "0801"),
        ("sync_status_refused", "0800"),
        ("close_reset", "0710526573657420436f6e6e656374696f6e"),
        ("sync_reply_step1", "040003010702"),
    ];

    fn fixture(name: &str) -> Vec<u8> {
        let (_, rest) = FIXTURES.iter().find(|(n, _)| *n == name).unwrap();
        prefixed(rest)
    }

    #[test]
    fn decodes_what_the_js_server_writes() {
        let decode = |name| Frame::decode(&fixture(name)).unwrap().message;
        assert_eq!(
            decode("authenticated_read_write"),
            Message::Authenticated { read_only: false }
        );
        assert_eq!(
            decode("authenticated_readonly"),
            Message::Authenticated { read_only: true }
        );
        assert_eq!(
            decode("permission_denied"),
            Message::PermissionDenied("permission-denied".into())
        );
        assert_eq!(decode("sync_status_ok"), Message::SyncStatus(true));
        assert_eq!(decode("sync_status_refused"), Message::SyncStatus(false));
        assert_eq!(
            decode("close_reset"),
            Message::Close("Reset Connection".into())
        );
        // A state vector {client 7: clock 2}, sent as SyncReply (type 4).
        let Message::Sync(Sync::Step1(sv)) = decode("sync_reply_step1") else {
            panic!("expected a Step1")
        };
        assert_eq!(sv.get(&yrs::ClientID::new(7)), 2);
        assert_eq!(
            Frame::decode(&fixture("close_reset")).unwrap().document,
            DOC
        );
    }

    #[test]
    fn encodes_what_the_js_side_reads() {
        for (name, message) in [
            ("auth_empty_token", Message::AuthToken(String::new())),
            (
                "authenticated_read_write",
                Message::Authenticated { read_only: false },
            ),
            ("sync_status_ok", Message::SyncStatus(true)),
            ("close_reset", Message::Close("Reset Connection".into())),
        ] {
            assert_eq!(Frame::new(DOC, message).encode(), fixture(name), "{name}");
        }
    }

    #[test]
    fn round_trips_every_message() {
        let messages = [
            Message::Sync(Sync::Step1(StateVector::default())),
            Message::Sync(Sync::Step2(vec![0, 0])),
            Message::Sync(Sync::Update(vec![1, 2, 3])),
            Message::Awareness(vec![1, 5, 1, 2, b'{', b'}']),
            Message::AuthToken("t".into()),
            Message::PermissionDenied("nope".into()),
            Message::Authenticated { read_only: true },
            Message::QueryAwareness,
            Message::Stateless("{}".into()),
            Message::Close("bye".into()),
            Message::SyncStatus(false),
        ];
        for message in messages {
            let frame = Frame::new("doc", message);
            assert_eq!(Frame::decode(&frame.encode()).unwrap(), frame);
        }
    }

    /// Bytes written by y-protocols 1.0.6 (`writeSyncStep1`, `writeUpdate`,
    /// `writePermissionDenied` behind their message type), as y-websocket servers send them.
    #[test]
    fn reads_and_writes_bare_y_websocket_messages() {
        let wire = Wire::YWebsocket;
        let Some(Message::Sync(Sync::Step1(sv))) = wire.decode(&hex("000003010702")).unwrap()
        else {
            panic!("a Step1")
        };
        assert_eq!(sv.get(&yrs::ClientID::new(7)), 2);
        let update = Message::Sync(Sync::Update(vec![0, 0]));
        assert_eq!(
            wire.decode(&hex("0002020000")).unwrap(),
            Some(update.clone())
        );
        assert_eq!(wire.encode(&update), hex("0002020000"));
        assert_eq!(
            wire.decode(&hex("0200026e6f")).unwrap(),
            Some(Message::PermissionDenied("no".into()))
        );
        assert_eq!(
            wire.decode(&hex("03")).unwrap(),
            Some(Message::QueryAwareness)
        );
        // Hocuspocus-only types do not exist there.
        assert!(wire.decode(&hex("0801")).is_err());
        assert!(wire.decode(&[]).is_err());
    }

    #[test]
    fn hocuspocus_frames_of_other_documents_are_not_ours() {
        let ours = Wire::Hocuspocus {
            document: DOC.into(),
        };
        let theirs = Wire::Hocuspocus {
            document: "another".into(),
        };
        let status = ours.encode(&Message::SyncStatus(true));
        assert_eq!(status, fixture("sync_status_ok"));
        assert_eq!(
            ours.decode(&status).unwrap(),
            Some(Message::SyncStatus(true))
        );
        assert_eq!(theirs.decode(&status).unwrap(), None);
    }

    #[test]
    fn rejects_garbage() {
        assert!(Frame::decode(&[]).is_err());
        assert!(Frame::decode(&[0x0a]).is_err());
        assert!(Frame::decode(&prefixed("63")).is_err());
        assert!(Frame::decode(&prefixed("0009")).is_err());
    }
}
