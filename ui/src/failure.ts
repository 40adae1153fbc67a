// A failure as a person reads it: one sentence and what to do next, the technical detail
// (the service's code and own words) folded under it.

import { h, showStatus } from "./dom";
import { errorDetail, errorText } from "./rpc";

/** The sentence, then the folded detail when something was left out of it. */
export function failureNodes(error: unknown): (Node | string)[] {
  const detail = errorDetail(error);
  return [
    errorText(error),
    detail === null ? "" : h("details", { class: "error-detail" }, h("summary", {}, "Details"), h("pre", {}, detail)),
  ];
}

/** Shows a failure in a status line (see {@link showStatus}). */
export function showError(el: HTMLElement, error: unknown): void {
  showStatus(el, "", true);
  el.replaceChildren(...failureNodes(error));
}
