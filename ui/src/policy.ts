// Policies as the user reads them.

import type { Policy } from "./types";

export const POLICY_LABELS: Record<Policy, string> = {
  auto: "Automatic",
  review: "Review",
  "read-only": "Read-only",
  "comment-only": "Comment only",
};

export const POLICIES = Object.keys(POLICY_LABELS) as Policy[];

/** Events carry policies as plain strings. */
export function isPolicy(value: unknown): value is Policy {
  return typeof value === "string" && Object.hasOwn(POLICY_LABELS, value);
}

/** One `<option>` per policy, in the order of {@link POLICIES}. */
export function policyOptions(): HTMLOptionElement[] {
  return POLICIES.map((policy) => new Option(POLICY_LABELS[policy], policy));
}
