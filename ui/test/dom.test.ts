import { afterEach, describe, expect, it, vi } from "vitest";
import { PASSING_MS, showPassing, showStatus } from "../src/dom";

afterEach(() => {
  vi.useRealTimers();
});

describe("confirmations", () => {
  it("pass after a while; an error or a newer message shown meanwhile stays", () => {
    vi.useFakeTimers();
    const line = document.createElement("p");
    showPassing(line, "Copied.");
    expect(line.textContent).toBe("Copied.");
    vi.advanceTimersByTime(PASSING_MS - 1);
    expect(line.textContent).toBe("Copied.");
    vi.advanceTimersByTime(1);
    expect(line.textContent).toBe("");

    showPassing(line, "Copied.");
    showStatus(line, "Copy failed: select the text and copy it.", true);
    vi.advanceTimersByTime(PASSING_MS);
    expect(line.textContent).toBe("Copy failed: select the text and copy it.");

    showPassing(line, "Undid the edit.");
    vi.advanceTimersByTime(PASSING_MS / 2);
    showPassing(line, "Undid another edit.");
    vi.advanceTimersByTime(PASSING_MS / 2);
    expect(line.textContent).toBe("Undid another edit.");
    expect(line.classList.contains("error")).toBe(false);
    vi.advanceTimersByTime(PASSING_MS / 2);
    expect(line.textContent).toBe("");
  });
});
