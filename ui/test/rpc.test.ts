import { clearMocks, mockIPC } from "@tauri-apps/api/mocks";
import { afterEach, describe, expect, it } from "vitest";
import { errorDetail, errorText, personMessage, RpcError, rpc, toRpcError } from "../src/rpc";

afterEach(() => clearMocks());

describe("rpc", () => {
  it("passes the arguments and returns the result", async () => {
    mockIPC((cmd, args) => (cmd === "check_instance" ? { url: (args as { url: string }).url, release_version: "4.1.0" } : null));
    await expect(rpc("check_instance", { url: "https://docs.example.org" })).resolves.toEqual({
      url: "https://docs.example.org",
      release_version: "4.1.0",
    });
  });

  it("turns a {code, message, hint} rejection into an RpcError", async () => {
    mockIPC(() => {
      throw { code: "INSTANCE_UNREACHABLE", message: "cannot reach docs.example.org", hint: "Check the network." };
    });
    const error = await rpc("overview").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RpcError);
    expect(error).toMatchObject({ code: "INSTANCE_UNREACHABLE", message: "cannot reach docs.example.org", hint: "Check the network." });
  });

  it("tells a person what to do, where the service's hint is written for agents", () => {
    const notFound = errorText({
      code: "DOC_NOT_FOUND",
      message: "document 1b2c… was not found",
      hint: "Check the document id or URL; list_documents shows the documents you can open.",
    });
    expect(notFound).toBe("Document 1b2c… was not found — Check the address: the document may have been deleted, or this account cannot see it.");
    const signedOut = errorText({
      code: "NOT_SIGNED_IN",
      message: "the instance wants a signed-in user",
      hint: "Sign in to the Docs instance in the Docs MCP app (or set DOCS_SESSION_COOKIE), or use a public document.",
    });
    expect(signedOut).toBe("The instance wants a signed-in user — Sign in on the Connect screen, or use a public document.");
    // Hints written for anyone stay as the service gives them.
    expect(errorText({ code: "RATE_LIMITED", message: "throttled", hint: "Wait 12 s and retry." })).toBe("Throttled — Wait 12 s and retry.");
  });

  it("says a failure in a sentence for a person: no library words, no ids, a capital first", () => {
    const failed = {
      code: "DOC_NOT_FOUND",
      message: "not found: document 0b5e6b7e-1f6a-4a8e-9a55-5d1f6f0d2c11 (No Document matches the given query.)",
      hint: "",
    };
    expect(errorText(failed)).toBe(
      "Not found: this document — Check the address: the document may have been deleted, or this account cannot see it.",
    );
    expect(personMessage("cannot reach https://docs.example.org (error sending request for url (https://docs.example.org/api/v1.0/config/))"))
      .toBe("Cannot reach https://docs.example.org");
    expect(personMessage(
      "cannot reach https://docs.example.org: connection failed (error sending request for url (https://docs.example.org/api/v1.0/config/): client error (Connect): invalid peer certificate: UnknownIssuer)",
    )).toBe("Cannot reach https://docs.example.org: connection failed: its certificate is not trusted by this computer");
  });

  it("keeps what the sentence left out as a detail, with the code, and nothing when nothing was", () => {
    expect(errorDetail({
      code: "DOC_NOT_FOUND",
      message: "not found: document 0b5e6b7e-1f6a-4a8e-9a55-5d1f6f0d2c11 (No Document matches the given query.)",
      hint: "",
    })).toBe("DOC_NOT_FOUND: not found: document 0b5e6b7e-1f6a-4a8e-9a55-5d1f6f0d2c11 (No Document matches the given query.)");
    expect(errorDetail({ code: "SYNC_TIMEOUT", message: "no answer in 10 s", hint: "Retry the tool call." }))
      .toBe("SYNC_TIMEOUT: no answer in 10 s\nHint for agents: Retry the tool call.");
    expect(errorDetail({ code: "INVALID_INPUT", message: "port 80 is reserved", hint: "Pick a port between 1024 and 65535." })).toBeNull();
  });

  it("wraps anything else as INTERNAL", () => {
    expect(toRpcError("boom")).toMatchObject({ code: "INTERNAL", message: "boom" });
  });
});
