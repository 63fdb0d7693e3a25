/** The page's DOM helpers. Nodes are built with textContent only: nothing the server sends is parsed as HTML. */

/** The element with this id; with a type, checked to be one (a renamed id fails here, by name). */
export function $<T extends HTMLElement = HTMLElement>(id: string, type?: { new (): T; prototype: T }): T {
  const node = document.getElementById(id);
  if (!node) throw new Error(`#${id} is missing from the page`);
  if (type && !(node instanceof type)) throw new Error(`#${id} is not a ${type.name}`);
  return node as T;
}

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string | null, text?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

export function show(id: string, visible: boolean): void {
  $(id).hidden = !visible;
}

/** What a failure says: an Error's message, else the value itself. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
