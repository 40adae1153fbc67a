//! The control API's client: `docs-mcp edits` and `docs-mcp clients`. It reaches the
//! service holding the data directory once that service proved it (`crate::holder`), reads
//! freely, and asks for decisions — which the person settles in the app's window or, headless,
//! by typing back here the code the service wrote to this terminal.
//!
//! Its lists print everything an agent wrote with control characters made visible
//! (`record::visible`).

use std::path::PathBuf;
use std::time::Duration;

use serde_json::{Value, json};

use super::{ClientsArgs, ClientsCommand, EditsArgs, EditsCommand};
use crate::clients::{AgentClient, NewAgentClient};
use crate::record::{EditRecord, visible};
use crate::token::BearerToken;

/// A client of the control API, with the control token the running service published in
/// the data directory (the agents' token is refused there).
struct Control {
    base: String,
    token: Option<BearerToken>,
    http: reqwest::Client,
}

impl Control {
    /// The control channel of the service holding `data_dir` — at `url` when given (a
    /// loopback address of that service) — once it proved it holds the directory: the control
    /// token goes to nothing else.
    async fn connect(url: Option<&str>, data_dir: &std::path::Path) -> anyhow::Result<Self> {
        let verified = crate::holder::verified(data_dir, url).await?;
        Ok(Control {
            base: verified.base,
            token: crate::authority::read(data_dir),
            http: reqwest::Client::builder()
                .timeout(Duration::from_secs(60))
                .build()?,
        })
    }

    async fn call(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Option<Value>,
    ) -> anyhow::Result<Value> {
        let mut request = self.http.request(method, format!("{}{path}", self.base));
        if let Some(token) = &self.token {
            request = request.bearer_auth(token.expose());
        }
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await.map_err(|e| {
            if e.is_connect() {
                anyhow::anyhow!(
                    "the Docs MCP service is not running at {}: start the Docs MCP app or `docs-mcp serve`",
                    self.base
                )
            } else {
                anyhow::anyhow!("calling {}: {e}", self.base)
            }
        })?;
        let status = response.status();
        let text = response.text().await.unwrap_or_default();
        // Records as deep as the journal holds (`crate::json`), not only serde_json's 128 levels.
        let parsed = crate::json::from_str::<Value>(&text);
        if status.is_success() {
            return match parsed {
                Ok(body) => Ok(body),
                Err(_) if text.trim().is_empty() => Ok(Value::Null),
                Err(e) => Err(anyhow::anyhow!(
                    "the Docs MCP service at {} answered unreadable JSON: {e}",
                    self.base
                )),
            };
        }
        let body = parsed.unwrap_or(Value::Null);
        let error = body.get("error");
        // The service's words may quote an agent's: printed, never obeyed by the terminal.
        let field = |k: &str| {
            visible(
                error
                    .and_then(|e| e.get(k))
                    .and_then(Value::as_str)
                    .unwrap_or(""),
            )
        };
        let mut text = format!("HTTP {}", status.as_u16());
        if !field("code").is_empty() {
            text = format!("{text} {}: {}", field("code"), field("message"));
        }
        if !field("hint").is_empty() {
            text = format!("{text}\nhint: {}", field("hint"));
        }
        if status == reqwest::StatusCode::UNAUTHORIZED {
            text = format!(
                "{text}\nthe running service's control token was not found or is stale: pass the service's --data-dir"
            );
        }
        anyhow::bail!(text)
    }
}

impl Control {
    /// Asks the running service for a decision and waits for the person to settle it: a
    /// click in the app's window, or — headless — the code the service shows in this
    /// terminal, typed back here. Returns the outcome (`{"kind", "value"}`); an error when
    /// it ended without a decision (declined, expired, failed).
    async fn decide(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Value,
    ) -> anyhow::Result<Value> {
        let asked = self.call(method, path, Some(body)).await?;
        let request = asked.get("request").cloned().unwrap_or_default();
        let id = request
            .get("id")
            .and_then(Value::as_str)
            .ok_or_else(|| anyhow::anyhow!("the service answered without a request: {asked}"))?
            .to_owned();
        let summary = visible(request.get("summary").and_then(Value::as_str).unwrap_or(""));
        if asked.get("settle_in").and_then(Value::as_str) == Some("terminal") {
            return self.confirm_here(&id, &summary, asked.get("code")).await;
        }
        eprintln!(
            "Asked Docs MCP: {summary}.\nConfirm it in the Docs MCP window; waiting (Ctrl-C stops waiting, the request stays in the window)."
        );
        let settled = loop {
            let request = self
                .call(
                    reqwest::Method::GET,
                    &format!("/control/requests/{}?wait=25", encode(&id)),
                    None,
                )
                .await?;
            match request.get("state").and_then(Value::as_str) {
                Some("waiting" | "carrying_out") => continue,
                _ => break request,
            }
        };
        match settled.get("state").and_then(Value::as_str) {
            Some("done") => {}
            Some("failed") => {
                let error = settled.get("error").cloned().unwrap_or_default();
                let field = |k: &str| visible(error.get(k).and_then(Value::as_str).unwrap_or(""));
                anyhow::bail!(
                    "{}: {}\nhint: {}",
                    field("code"),
                    field("message"),
                    field("hint")
                );
            }
            Some("declined") => anyhow::bail!("declined in the Docs MCP window: nothing was done"),
            _ => {
                let why = settled.get("why").and_then(Value::as_str).unwrap_or("");
                anyhow::bail!(
                    "the request ended without a decision ({}): nothing was done",
                    visible(why)
                );
            }
        }
        // The edit as it stands now, for an edit's decision; else what was done.
        let edit = request
            .get("action")
            .and_then(|a| a.get("edit_id"))
            .and_then(Value::as_str);
        Ok(match edit {
            Some(edit) => json!({
                "kind": "edit",
                "value": self.call(reqwest::Method::GET, &format!("/control/edits/{}", encode(edit)), None).await?,
            }),
            None => {
                json!({ "kind": "done", "value": settled.get("outcome").cloned().unwrap_or_default() })
            }
        })
    }

    /// Headless: the service showed a code in this terminal (or, where it cannot, sent it
    /// here): the person types it back.
    async fn confirm_here(
        &self,
        id: &str,
        summary: &str,
        code: Option<&Value>,
    ) -> anyhow::Result<Value> {
        use std::io::IsTerminal as _;
        if !std::io::stdin().is_terminal() || !std::io::stdout().is_terminal() {
            anyhow::bail!(
                "a decision needs you at a terminal: run this command yourself, in a terminal (not through a pipe or an agent's shell)"
            );
        }
        match code.and_then(Value::as_str) {
            Some(code) => println!("Docs MCP: {summary}.\nTo confirm, type this code: {code}"),
            None => println!("(Docs MCP wrote the code to this terminal, above.)"),
        }
        print!("Code: ");
        std::io::Write::flush(&mut std::io::stdout())?;
        let typed = tokio::task::spawn_blocking(|| {
            let mut line = String::new();
            std::io::stdin().read_line(&mut line).map(|_| line)
        })
        .await??;
        let confirmed = self
            .call(
                reqwest::Method::POST,
                &format!("/control/requests/{}/confirm", encode(id)),
                Some(json!({ "code": typed.trim() })),
            )
            .await?;
        Ok(confirmed.get("outcome").cloned().unwrap_or_default())
    }
}

pub(super) async fn clients(args: ClientsArgs, data_dir: PathBuf) -> anyhow::Result<()> {
    let control = Control::connect(args.url.as_deref(), &data_dir).await?;
    let line = |c: &AgentClient| match c.revoked_at {
        Some(_) => format!("{}  {}  (revoked)", c.id, visible(&c.name)),
        None => format!("{}  {}", c.id, visible(&c.name)),
    };
    let (method, path, body) = match &args.command {
        ClientsCommand::List => {
            let body = control
                .call(reqwest::Method::GET, "/control/clients", None)
                .await?;
            if args.json {
                println!("{}", serde_json::to_string_pretty(&body)?);
                return Ok(());
            }
            let clients: Vec<AgentClient> =
                serde_json::from_value(body.get("clients").cloned().unwrap_or(json!([])))?;
            if clients.is_empty() {
                println!("No clients: agents use the shared token (`docs-mcp token`).");
            }
            for client in &clients {
                println!("{}", line(client));
            }
            return Ok(());
        }
        ClientsCommand::Add { name } => (
            reqwest::Method::POST,
            "/control/clients".to_owned(),
            json!({ "name": name }),
        ),
        ClientsCommand::Revoke { id } => (
            reqwest::Method::POST,
            format!("/control/clients/{}/revoke", encode(id.trim())),
            json!({}),
        ),
    };
    let outcome = control.decide(method, &path, body).await?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&outcome)?);
        return Ok(());
    }
    match outcome.get("kind").and_then(Value::as_str) {
        Some("client_added") => {
            let added: NewAgentClient =
                serde_json::from_value(outcome.get("value").cloned().unwrap_or_default())?;
            println!("{}", line(&added.client));
            println!("Token (shown this once; give it to that client as its bearer token):");
            println!("{}", added.token);
        }
        Some("client_revoked") => {
            let revoked: AgentClient =
                serde_json::from_value(outcome.get("value").cloned().unwrap_or_default())?;
            println!("{}", line(&revoked));
        }
        // Settled in the window, which showed the new client's token to the person.
        _ => println!(
            "{}",
            visible(
                outcome
                    .get("value")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
            )
        ),
    }
    Ok(())
}

pub(super) async fn edits(args: EditsArgs, data_dir: PathBuf) -> anyhow::Result<()> {
    let control = Control::connect(args.url.as_deref(), &data_dir).await?;
    match args.command {
        EditsCommand::List {
            status,
            document,
            limit,
        } => {
            let mut query = Vec::new();
            if let Some(s) = status {
                query.push(format!("status={}", encode(&s)));
            }
            if let Some(d) = document {
                query.push(format!("document={}", encode(&d)));
            }
            if let Some(l) = limit {
                query.push(format!("limit={l}"));
            }
            let path = if query.is_empty() {
                "/control/edits".to_owned()
            } else {
                format!("/control/edits?{}", query.join("&"))
            };
            let body = control.call(reqwest::Method::GET, &path, None).await?;
            if args.json {
                println!("{}", serde_json::to_string_pretty(&body)?);
                return Ok(());
            }
            let edits: Vec<EditRecord> =
                serde_json::from_value(body.get("edits").cloned().unwrap_or(json!([])))?;
            if edits.is_empty() {
                println!("No edits.");
            }
            for edit in &edits {
                println!("{}", edit_line(edit));
            }
        }
        EditsCommand::Approve { id, parts } => {
            let request = match parts {
                Some(parts) => json!({ "parts": parts }),
                None => json!({}),
            };
            let path = format!("/control/edits/{}/approve", encode(id.trim()));
            let outcome = control
                .decide(reqwest::Method::POST, &path, request)
                .await?;
            print_decision(&outcome, args.json)?;
        }
        EditsCommand::Reject { id, comment } => {
            let path = format!("/control/edits/{}/reject", encode(id.trim()));
            let request = json!({ "comment": comment });
            let outcome = control
                .decide(reqwest::Method::POST, &path, request)
                .await?;
            print_decision(&outcome, args.json)?;
        }
    }
    Ok(())
}

/// Prints the outcome of a decision on an edit (`{"kind": "edit", "value": <record>}`).
fn print_decision(outcome: &Value, as_json: bool) -> anyhow::Result<()> {
    if as_json {
        println!("{}", serde_json::to_string_pretty(outcome)?);
        return Ok(());
    }
    let edit: EditRecord =
        serde_json::from_value(outcome.get("value").cloned().unwrap_or_default())?;
    println!("{}", edit_line(&edit));
    if let Some(error) = &edit.error
        && edit.status != crate::record::EditStatus::Rejected
    {
        println!(
            "  {}: {} ({})",
            error.code,
            visible(&error.message),
            visible(&error.hint)
        );
    }
    Ok(())
}

/// One line per edit: id, status, agent, document, tool, reason.
pub fn edit_line(edit: &EditRecord) -> String {
    let title = edit
        .document_title
        .clone()
        .filter(|t| !t.trim().is_empty())
        .unwrap_or_else(|| edit.document_id.to_string());
    let mut line = format!(
        "{}  {:<8} {}  \"{}\"  {}",
        edit.id,
        edit.status.as_str(),
        visible(&edit.agent.name),
        visible(&title),
        visible(&edit.tool)
    );
    if let Some(reason) = edit.reason.as_deref().filter(|r| !r.trim().is_empty()) {
        line.push_str(&format!("  — {}", visible(reason)));
    }
    if let Some(proposed) = &edit.proposed_comment {
        if let Some(quoted) = &proposed.quoted_text {
            line.push_str(&format!("  on \"{}\"", visible(quoted)));
        }
        if let Some(body) = &proposed.body {
            line.push_str(&format!(": {}", visible(&body.replace('\n', " "))));
        }
    }
    if !edit.preview.links.is_empty() {
        // Quoted: a URL's control characters are shown escaped, never sent to the terminal.
        let links: Vec<String> = edit
            .preview
            .links
            .iter()
            .map(|link| match &link.host {
                Some(host) => format!("{:?} ({host})", link.url),
                None => format!("{:?}", link.url),
            })
            .collect();
        line.push_str(&format!("  adds links: {}", links.join(", ")));
    }
    if let Some(comment) = edit.comment.as_deref() {
        line.push_str(&format!("  [comment: {}]", visible(comment)));
    }
    line
}

/// Percent-encodes a query or path value.
fn encode(value: &str) -> String {
    let mut out = String::new();
    for b in value.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `docs-mcp edits list` shows every link target and media URL an edit adds, in full.
    #[test]
    fn an_edit_line_shows_the_links_it_adds() {
        let fixture = include_str!("../../../../ui/test/fixtures/edit-record.json");
        let mut edit: EditRecord = serde_json::from_str(fixture).unwrap();
        let link = |url: &str, host: Option<&str>| crate::record::PreviewLink {
            block_id: "b1".into(),
            kind: crate::record::LinkKind::Link,
            url: url.into(),
            host: host.map(str::to_owned),
            text: "here".into(),
        };
        edit.preview.links = vec![
            link("https://evil.example/\u{1b}[2Jx", Some("evil.example")),
            link("/docs/a/", None),
        ];
        assert!(
            edit_line(&edit).ends_with(
                "  adds links: \"https://evil.example/\\u{1b}[2Jx\" (evil.example), \"/docs/a/\""
            ),
            "{}",
            edit_line(&edit)
        );
    }

    /// `docs-mcp edits list` shows what a proposed comment says and the text it is about.
    #[test]
    fn an_edit_line_shows_a_proposed_comment() {
        let fixture = include_str!("../../../../ui/test/fixtures/edit-record.json");
        let mut edit: EditRecord = serde_json::from_str(fixture).unwrap();
        edit.tool = "add_comment".into();
        edit.reason = None;
        edit.proposed_comment = Some(crate::record::ProposedComment {
            action: crate::record::CommentAction::Add,
            thread_id: None,
            block_id: Some("b1".into()),
            quoted_text: Some("ship on Monday".into()),
            body: Some("Still right?\nAsk Ada.".into()),
            body_blocks: None,
            anchored: None,
        });
        let line = edit_line(&edit);
        assert!(
            line.ends_with("  add_comment  on \"ship on Monday\": Still right? Ask Ada."),
            "{line}"
        );
    }
}
