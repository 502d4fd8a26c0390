export * from './reaction';
export * from './reaction-runner';
export * from './reaction-parking';
export * from './postgres-reaction-parking';
export * from './unprocessable-event';
export * from './reconcile-loop';
export * from './reaction-partition';
export * from './reaction-hosts';
