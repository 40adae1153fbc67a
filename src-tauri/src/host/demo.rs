//! The demo, as the host runs it: started once, its documents under Review, the demo agent's
//! proposals through `DocsService::submit`; `--demo`'s directory emptied at each start unless
//! a running demo holds it.

use std::path::PathBuf;

use docs_client::InstanceUrl;
use docs_mcp::EditRequest;
use docs_mcp::edits::{Anchor, EditOp, InsertBlocks, Position, TextBases};
use docs_mcp::record::{AgentInfo, EditRecord, Policy};
use uuid::Uuid;

use super::Host;
use crate::api::{CommandResult, Overview, invalid};
use crate::demo::{DemoServer, PROPOSALS};

/// The agent of the demo, as cards and History name it.
const DEMO_AGENT: &str = "Demo agent";

/// The demo's data directory (`demo` under `base`), emptied: nothing of an earlier demo is
/// remembered — its edits, History, documents and settings were the demo server's, which
/// forgot them when it stopped. Left as it is while a running demo holds it (the start then
/// says so).
pub(super) fn forget_demo(base: &std::path::Path) -> anyhow::Result<PathBuf> {
    let dir = base.join("demo");
    if docs_mcp::data_dir_holder(&dir).is_none() {
        match std::fs::remove_dir_all(&dir) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(anyhow::anyhow!(
                    "cannot empty the demo's directory {}: {e}",
                    dir.display()
                ));
            }
            _ => {}
        }
    }
    Ok(dir)
}

impl Host {
    /// `--demo`'s start ended (started or not): the window stops saying it is starting.
    pub fn demo_start_ended(&self) {
        self.demo_pending
            .store(false, std::sync::atomic::Ordering::Relaxed);
    }

    /// The demo's documents while the demo runs.
    pub(super) fn demo_documents(&self) -> Option<Vec<(Uuid, String)>> {
        let demo = self.demo.lock().expect("demo lock");
        demo.as_ref().map(|server| server.documents.clone())
    }

    /// Starts the demo (once): its server with sample documents, the service connected to it
    /// (not remembered), the documents listed, each under Review so agents' edits wait.
    pub async fn start_demo(&self) -> CommandResult<Overview> {
        let _starting = self.demo_start.lock().await;
        if self.demo_documents().is_none() {
            let server = DemoServer::start().await.map_err(|e| {
                invalid(
                    format!("the demo did not start: {e:#}"),
                    "Run scripts/run.sh --demo from the repository's folder: it installs what the demo needs.",
                )
            })?;
            self.service
                .connect_instance(InstanceUrl::parse(&server.url)?, None, None)?;
            for (id, _) in &server.documents {
                self.service.add_document(&id.to_string()).await?;
                self.service
                    .set_policy(Some(*id), Some(Policy::Review))
                    .await?;
            }
            *self.demo.lock().expect("demo lock") = Some(server);
        }
        self.overview().await
    }

    /// The demo agent proposes its next edit (in turn, to the sample documents); it waits in
    /// Pending edits like any agent's.
    pub async fn demo_propose_edit(&self) -> CommandResult<EditRecord> {
        let documents = self.demo_documents().ok_or_else(|| {
            invalid(
                "the demo is not running",
                "Click \"Try with a demo document\" on the Connect screen.",
            )
        })?;
        let turn = self
            .demo_proposals
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let (index, markdown, reason) = PROPOSALS[turn % PROPOSALS.len()];
        let (document, _) = &documents[index % documents.len()];
        let position = Position {
            at: Anchor::End,
            block_id: None,
        };
        let request = EditRequest {
            document: document.to_string(),
            arguments: serde_json::json!({
                "document": document.to_string(),
                "position": position,
                "markdown": markdown,
                "reason": reason,
            }),
            ops: vec![EditOp::InsertBlocks(InsertBlocks {
                position,
                markdown: Some(markdown.to_owned()),
                blocks: None,
            })],
            tool: "insert_blocks".into(),
            reason: Some(reason.to_owned()),
            revision: None,
            agent: AgentInfo::new(DEMO_AGENT, "demo", DEMO_AGENT),
            bases: TextBases::default(),
        };
        Ok(self.service.submit(request).await?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each demo starts from an empty directory of its own, twice in a row; one that runs
    /// keeps its own.
    #[test]
    fn the_demo_starts_clean_each_time_but_never_under_a_running_one() {
        let base = std::env::temp_dir().join(format!("docs-mcp-demo-{}", uuid::Uuid::new_v4()));
        for _ in 0..2 {
            let dir = forget_demo(&base).unwrap();
            assert_eq!(dir, base.join("demo"));
            assert!(!dir.exists(), "nothing of the last demo is left");
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join("docs-mcp.db"), "an earlier demo's journal").unwrap();
        }
        let holder = docs_mcp::Holder {
            pid: std::process::id(),
            program: "the Docs MCP app".into(),
            endpoint: None,
            hands_over: false,
            proof_key: "k".into(),
        };
        let running = docs_mcp::DataDirLock::acquire(&base.join("demo"), &holder).unwrap();
        forget_demo(&base).unwrap();
        assert!(
            base.join("demo/docs-mcp.db").exists(),
            "a running demo keeps its journal"
        );
        drop(running);
        std::fs::remove_dir_all(base).unwrap();
    }
}
