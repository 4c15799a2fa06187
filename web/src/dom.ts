/** Small DOM helpers: elements are built with text content only, so no API value is ever parsed as HTML. */
export function element<Tag extends keyof HTMLElementTagNameMap>(
  tag: Tag,
  options: { className?: string; text?: string; attributes?: Record<string, string> } = {},
  children: (Node | string)[] = [],
): HTMLElementTagNameMap[Tag] {
  const node = document.createElement(tag);
  if (options.className) node.className = options.className;
  if (options.text !== undefined) node.textContent = options.text;
  for (const [name, value] of Object.entries(options.attributes ?? {})) node.setAttribute(name, value);
  node.append(...children);
  return node;
}

export function byId<Type extends HTMLElement>(id: string, type: new () => Type): Type {
  const found = document.getElementById(id);
  if (!(found instanceof type)) throw new Error(`the page has no ${type.name} #${id}`);
  return found;
}

export const svgNamespace = 'http://www.w3.org/2000/svg';

export function svgElement<Tag extends keyof SVGElementTagNameMap>(
  tag: Tag,
  attributes: Record<string, string | number> = {},
): SVGElementTagNameMap[Tag] {
  const node = document.createElementNS(svgNamespace, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  return node;
}
