import { BeforeApplicationShutdown, Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { aggregateWildcard, parseSubject } from '@shop/contracts';
import { CommitFollower, EventStore, followCommits } from '@shop/eventstore';
import { EVENT_STORE } from '../infrastructure/tokens';

/** When an account's status was read: while following since then, a later commit of it is known. */
export interface ChangeMark {
  epoch: number;
  heard: number;
}

/** The accounts whose latest commit is remembered; an older one only says "some account changed". */
const rememberedAccounts = 100_000;

/**
 * Every commit of every user aggregate, from any process, as it is stored. The access guard
 * keeps an account's status for as long as nothing of that account was committed since it read
 * it, instead of asking the stream again after a fixed period: on nats-server 2.9 the question
 * "anything on this user's subject after its version?" reads every block stored since that
 * version, tens of milliseconds once a stream holds a few hundred thousand events, and it was
 * asked for every active user every few seconds.
 */
@Injectable()
export class AccountChanges implements OnModuleInit, BeforeApplicationShutdown {
  private follower: CommitFollower | null = null;
  /** Counts the periods of following; a mark from an earlier one proves nothing. */
  private epoch = 0;
  private isFollowing = false;
  /** Commits heard so far, and when each remembered account last had one. */
  private heard = 0;
  private readonly lastHeard = new Map<string, number>();
  /** The latest commit among the accounts forgotten to keep the map bounded. */
  private forgottenUpTo = 0;

  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  onModuleInit(): void {
    const prefix = this.store.subjectPrefix;
    this.follower = followCommits(this.store, aggregateWildcard(prefix, 'user'), {
      commit: ({ subject }) => this.heardOf(parseSubject(prefix, subject).id),
      following: () => {
        this.epoch++;
        this.isFollowing = true;
      },
      interrupted: () => {
        this.isFollowing = false;
      },
    });
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.follower?.stop();
  }

  /** Taken before reading an account's status; null while not following. */
  mark(): ChangeMark | null {
    return this.isFollowing ? { epoch: this.epoch, heard: this.heard } : null;
  }

  /**
   * Whether a commit of the account may have been stored since `mark` (one heard, or one among
   * the forgotten accounts'); null when this cannot be said (not following ever since).
   */
  changedSince(userId: string, mark: ChangeMark | null): boolean | null {
    if (!mark || !this.isFollowing || mark.epoch !== this.epoch) return null;
    return (this.lastHeard.get(userId) ?? this.forgottenUpTo) > mark.heard;
  }

  private heardOf(userId: string): void {
    this.heard++;
    this.lastHeard.delete(userId);
    this.lastHeard.set(userId, this.heard);
    if (this.lastHeard.size > rememberedAccounts) {
      const [oldest, at] = this.lastHeard.entries().next().value!;
      this.lastHeard.delete(oldest);
      this.forgottenUpTo = at;
    }
  }
}
