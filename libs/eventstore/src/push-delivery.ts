/** Reading what a push consumer delivers onto this process's own inbox: the event store's reads and its followers. */
import { createInbox, Msg, NatsConnection, Subscription } from 'nats';

/** A heartbeat or a flow-control request of a push consumer, not a stored message. */
export function isStatus(message: Msg): boolean {
  return message.data.length === 0 && message.headers?.code === 100;
}

/** Answers a flow-control request, or a heartbeat that says the consumer waits for one. */
export function answerFlowControl(nc: NatsConnection, message: Msg): void {
  const stalled = message.headers?.get('Nats-Consumer-Stalled');
  if (stalled) nc.publish(stalled);
  else if (message.reply) message.respond();
}

/**
 * Ends a read subscription when nothing (not even a heartbeat) came for `ms` while armed. Armed
 * and paused around every message a read yields: that notes the time, and one timer at a time
 * looks at it, where a timer set and cleared per message was a tenth of a catch-up's CPU.
 */
export function stallWatch(subscription: Subscription, ms: number) {
  let armedAt: number | null = null;
  let timer: NodeJS.Timeout | null = null;
  const check = () => {
    timer = null;
    if (armedAt === null) return;
    const waited = performance.now() - armedAt;
    if (waited >= ms) subscription.unsubscribe();
    else timer = setTimeout(check, ms - waited).unref();
  };
  return {
    arm() {
      armedAt = performance.now();
      timer ??= setTimeout(check, ms).unref();
    },
    pause() {
      armedAt = null;
    },
  };
}

/** A new inbox under the connection's own prefix (connectNats: `_INBOX_<user>`), the only one its user may read. */
export function ownInbox(nc: NatsConnection): string {
  return createInbox((nc as unknown as { options?: { inboxPrefix?: string } }).options?.inboxPrefix);
}
