export * from './user/users-projection';
export * from './projection-registry';
export * from './memory/user-memories-projection';
export * from './memory/sizes-memory';
export * from './cart/cart-items-projection';
export * from './session/chat-sessions-projection';
export * from './order/orders-projection';
export * from './cart/cart-cache';
