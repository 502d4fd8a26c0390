const entities: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Product names and retailers come from users' carts: never trusted as markup. */
export function escapeHtml(value: string | number): string {
  return String(value).replace(/[&<>"']/g, (c) => entities[c]!);
}
