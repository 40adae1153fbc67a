// A tiny element builder: no framework, no innerHTML with data.

type Attrs = Record<string, string | number | boolean | null | undefined | EventListener>;
type Child = Node | string | null | undefined | false;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: (Child | Child[])[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") {
      el.addEventListener(key.slice(2).toLowerCase(), value);
    } else if (key === "class") {
      el.className = String(value);
    } else if (value === true) {
      el.setAttribute(key, "");
    } else {
      el.setAttribute(key, String(value));
    }
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child);
  }
  return el;
}

export function clear(el: Element): void {
  el.replaceChildren();
}

/** Milliseconds since the epoch, in the user's locale. */
export function formatTime(ms: number): string {
  return new Date(ms).toLocaleString();
}

/** A `<time>`: the user's locale to read, ISO 8601 for machines. */
export function timeElement(ms: number): HTMLTimeElement {
  return h("time", { datetime: new Date(ms).toISOString() }, formatTime(ms));
}

/** "just now", "5 min ago", "3 h ago", "2 days ago": how long before `now`. */
export function relativeTime(ms: number, now: number = Date.now()): string {
  const seconds = Math.max(0, Math.round((now - ms) / 1000));
  if (seconds < 45) return "just now";
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 24) return `${hours} h ago`;
  const days = Math.round(hours / 24);
  return days === 1 ? "yesterday" : `${days} days ago`;
}

/** A `<time>` saying how long ago, the exact time on hover. */
export function timeAgoElement(ms: number, now: number = Date.now()): HTMLTimeElement {
  return h("time", { datetime: new Date(ms).toISOString(), title: formatTime(ms) }, relativeTime(ms, now));
}

/** A polite live region for an action's outcome. */
export function statusLine(className: string): HTMLParagraphElement {
  return h("p", { class: className, role: "status", "aria-live": "polite" });
}

/** Shows an outcome; a failure also gets the `error` class. */
export function showStatus(el: HTMLElement, text: string, isError = false): void {
  passingShown.delete(el);
  el.textContent = text;
  el.classList.toggle("error", isError);
}

/** How long a confirmation stays ("Copied.", "Undid …"): it says what just happened, not a
 * state that holds, and must not sit there minutes later. */
export const PASSING_MS = 8000;
const passingShown = new WeakMap<HTMLElement, symbol>();

/** Shows a confirmation in `el` and clears it after {@link PASSING_MS}, unless something else
 * was shown there meanwhile (with this or {@link showStatus}). */
export function showPassing(el: HTMLElement, ...parts: (Node | string)[]): void {
  el.classList.remove("error");
  el.replaceChildren(...parts);
  const shown = Symbol("passing");
  passingShown.set(el, shown);
  setTimeout(() => {
    if (passingShown.get(el) === shown) {
      passingShown.delete(el);
      el.replaceChildren();
    }
  }, PASSING_MS);
}

/** A name someone else chose (an agent's, a collaborator's, a document's title): text, never
 * markup, on one line clamped by CSS (`.clamp`: ellipsis), the whole name in `title`. */
export function nameLabel(name: string, className: string): HTMLSpanElement {
  return h("span", { class: `${className} clamp`, title: name }, name);
}

/** A name shortened to `max` characters, for where CSS cannot clamp (an `<option>`). */
export function shortName(name: string, max = 60): string {
  const chars = [...name];
  return chars.length > max ? `${chars.slice(0, max - 1).join("")}…` : name;
}
