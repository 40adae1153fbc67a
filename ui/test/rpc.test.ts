import { clearMocks, mockIPC } from "@tauri-apps/api/mocks";
import { afterEach, describe, expect, it } from "vitest";
import { RpcError, rpc, toRpcError } from "../src/rpc";

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

  it("wraps anything else as INTERNAL", () => {
    expect(toRpcError("boom")).toMatchObject({ code: "INTERNAL", message: "boom" });
  });
});
