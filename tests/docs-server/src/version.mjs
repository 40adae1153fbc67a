// Releases of Docs the test server can behave as (its `--docs-version`).

/** Whether release `version` is `floor` or later (both X.Y.Z). */
export function versionAtLeast(version, floor) {
  const a = version.split('.').map(Number);
  const b = floor.split('.').map(Number);
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i] > b[i];
  return true;
}
