import { clearMocks, mockIPC } from "@tauri-apps/api/mocks";
import { afterEach, describe, expect, it } from "vitest";
import { errorText, RpcError, rpc, toRpcError } from "../src/rpc";

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
    expect(notFound).toBe("document 1b2c… was not found — Check the address: the document may have been deleted, or this account cannot see it.");
    const signedOut = errorText({
      code: "NOT_SIGNED_IN",
      message: "the instance wants a signed-in user",
      hint: "Sign in to the Docs instance in the Docs MCP app (or set DOCS_SESSION_COOKIE), or use a public document.",
    });
    expect(signedOut).toBe("the instance wants a signed-in user — Sign in on the Connect screen, or use a public document.");
    // Hints written for anyone stay as the service gives them.
    expect(errorText({ code: "RATE_LIMITED", message: "throttled", hint: "Wait 12 s and retry." })).toBe("throttled — Wait 12 s and retry.");
  });

  it("wraps anything else as INTERNAL", () => {
    expect(toRpcError("boom")).toMatchObject({ code: "INTERNAL", message: "boom" });
  });
});
