/** DOM builders for the page: messages with their tool results, product cards, the cart. */
import { preselectedSize } from './sizes.js';

export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (name.startsWith('on')) node.addEventListener(name.slice(2), value);
    else if (value !== undefined && value !== false) node.setAttribute(name, value === true ? '' : value);
  }
  for (const child of children.flat()) {
    if (child !== undefined && child !== null) node.append(child);
  }
  return node;
}

export const usd = (cents) => `$${(cents / 100).toFixed(2)}`;

function choice(name, label, options, selected) {
  if (!options || options.length === 0) return undefined;
  return el(
    'label',
    {},
    `${label} `,
    el(
      'select',
      { name },
      options.map((option) => el('option', { selected: option === selected }, option)),
    ),
  );
}

/** A product from a tool result, with add-to-cart straight from the chat, in the shopper's size. */
export function productCard(product, onAdd, savedSizes) {
  const card = el(
    'div',
    { class: 'product', 'data-product-id': product.productId },
    // A picture that cannot load (an offline catalogue) is dropped rather than shown broken.
    el('img', { src: product.image, alt: '', loading: 'lazy', onerror: (event) => event.target.remove() }),
    el('div', { class: 'name' }, product.productName),
    el('div', { class: 'meta' }, `${product.brand} · ${product.retailer}`),
    el('div', { class: 'price' }, usd(product.price)),
    choice('size', 'Size', product.sizes, preselectedSize(product.sizes, savedSizes)),
    choice('color', 'Color', product.colors),
  );
  const button = el('button', { type: 'button', class: 'add' }, 'Add to cart');
  button.addEventListener('click', () =>
    onAdd(
      product,
      card.querySelector('[name=size]')?.value,
      card.querySelector('[name=color]')?.value,
      button,
    ),
  );
  card.append(button);
  return card;
}

function toolSummary(name, part) {
  const { input = {}, output = {} } = part;
  switch (name) {
    case 'searchProducts':
      return `Searched "${input.query}": ${output.total} found`;
    case 'getProductDetails':
      return output.found === false ? 'No such product' : `Details of ${output.productName}`;
    case 'viewCart':
      return `Cart: ${output.items.length} item${output.items.length === 1 ? '' : 's'}`;
    case 'addToCart':
      return `Added ${output.item.productName} (${output.item.size}, ${output.item.color}) to the cart`;
    case 'removeFromCart':
      return 'Removed an item from the cart';
    case 'checkout':
      return `Order ${output.orderId} created (${output.phase}); approve it from wallet ${output.walletAddress}`;
    case 'rememberMemory':
      return `Remembered: ${output.text}`;
    default:
      return `${name}: ${JSON.stringify(output)}`;
  }
}

function renderTool(part, actions) {
  const name = part.type.slice('tool-'.length);
  // A failed tool answers {success: false, message}; sessions stored before that hold output-error parts.
  const failure =
    part.state === 'output-error'
      ? part.errorText
      : part.state === 'output-available' && part.output?.success === false
        ? part.output.message
        : undefined;
  if (failure !== undefined) {
    return el('div', { class: 'tool failed', 'data-tool': name }, `${name} failed: ${failure}`);
  }
  if (part.state !== 'output-available') {
    return el('div', { class: 'tool running', 'data-tool': name }, `${name}…`);
  }
  const products =
    name === 'searchProducts'
      ? part.output.products
      : name === 'getProductDetails' && part.output.found !== false
        ? [part.output]
        : [];
  return el(
    'div',
    { class: 'tool', 'data-tool': name },
    el('div', {}, toolSummary(name, part)),
    name === 'checkout' && part.output.orderId
      ? el(
          'a',
          { class: 'order-link', href: `#order-${part.output.orderId}` },
          'Approve it and follow it in Orders',
        )
      : undefined,
    products.length > 0
      ? el(
          'div',
          { class: 'products' },
          products.map((product) => productCard(product, actions.addToCart, actions.savedSizes())),
        )
      : undefined,
  );
}

/** One chat message: text, memory activity, tool calls with their results, and any stream error. */
export function renderMessage(message, actions) {
  const node = el('div', { class: `message ${message.role}`, 'data-message-id': message.id });
  for (const part of message.parts) {
    if (part.type === 'text') node.append(el('div', { class: 'text' }, part.text));
    else if (part.type === 'data-memwal-activity')
      node.append(el('div', { class: 'memory' }, `Memory: ${part.data.message}`));
    else if (part.type.startsWith('tool-')) node.append(renderTool(part, actions));
  }
  if (message.error) node.append(el('div', { class: 'error' }, message.error));
  return node;
}

export function renderCart(items, actions) {
  return items.map((item) =>
    el(
      'li',
      { 'data-item-id': item.id },
      el('div', { class: 'name' }, item.productName),
      el('div', { class: 'meta' }, `${usd(item.price)} · size ${item.size} · ${item.color}`),
      el(
        'div',
        { class: 'actions' },
        el('button', { type: 'button', class: 'remove', onclick: () => actions.remove(item) }, 'Remove'),
        el(
          'button',
          { type: 'button', class: 'checkout', onclick: () => actions.checkout(item) },
          'Check out',
        ),
      ),
    ),
  );
}
