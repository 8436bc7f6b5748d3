import { Fifo } from '../publish/fifo.js';

/** One message handed on for publishing; `done` it once its outcome is durable. */
export interface OffsetTicket {
  readonly partition: number;
  readonly offset: number;
  /** The partition's assignment the message was read under: a ticket of an earlier one counts for nothing. */
  readonly epoch: number;
}

/** An offset to commit: the next message to read in the partition (Kafka's convention), everything before it done. */
export interface CommitPoint {
  partition: number;
  offset: number;
}

class PartitionOffsets {
  readonly pending = new Fifo<number>();
  readonly done = new Set<number>();
  /** The next offset to commit (the first offset not yet done), once anything is done. */
  next: number | undefined;
  committed: number | undefined;
  /** The partition's end (high watermark) at the last fetch, for the lag. */
  end: number | undefined;
  /** The highest offset read + 1. */
  read: number | undefined;
  /** The first offset read in this assignment: where the group's committed position stood when it began. */
  first: number | undefined;
  constructor(readonly epoch: number) {}
}

/**
 * At-least-once bookkeeping per partition: a partition's offset may be committed only up to its first message
 * without a durable outcome, whatever order the outcomes arrive in. Pure: no Kafka, no clock.
 */
export class OffsetTracker {
  readonly #partitions = new Map<number, PartitionOffsets>();
  #epochs = 0;

  /** A partition this member now owns; reading it again after a revoke starts a new epoch. */
  assign(partition: number): void {
    if (!this.#partitions.has(partition)) this.#partitions.set(partition, new PartitionOffsets(++this.#epochs));
  }

  /** The partition went to another member: its messages still in flight will commit nothing here. */
  revoke(partition: number): void {
    this.#partitions.delete(partition);
  }

  /** Partitions owned now. */
  assigned(): number[] {
    return [...this.#partitions.keys()].sort((a, b) => a - b);
  }

  /**
   * False for a message already read in this assignment of its partition: the consumer fetched it again (after it
   * restarted, say) while the first copy is still on its way, which will commit it.
   */
  isNew(partition: number, offset: number): boolean {
    const read = this.#partitions.get(partition)?.read;
    return read === undefined || offset >= read;
  }

  /** A message read, in partition order. */
  add(partition: number, offset: number): OffsetTicket {
    this.assign(partition);
    const state = this.#partitions.get(partition) as PartitionOffsets;
    state.pending.push(offset);
    state.first ??= offset;
    state.read = offset + 1;
    return { partition, offset, epoch: state.epoch };
  }

  /** True while the ticket's partition is still owned under the assignment the message was read in. */
  owns(ticket: OffsetTicket): boolean {
    return this.#partitions.get(ticket.partition)?.epoch === ticket.epoch;
  }

  /** The message has a durable outcome. */
  done(ticket: OffsetTicket): void {
    const state = this.#partitions.get(ticket.partition);
    if (state === undefined || state.epoch !== ticket.epoch) return;
    state.done.add(ticket.offset);
    for (let head = state.pending.peek(); head !== undefined && state.done.delete(head); head = state.pending.peek()) {
      state.pending.take();
      state.next = head + 1;
    }
  }

  /** Where each partition may be committed, for those that moved since their last commit. */
  committable(): CommitPoint[] {
    const points: CommitPoint[] = [];
    for (const [partition, state] of this.#partitions) {
      if (state.next !== undefined && state.next !== state.committed) points.push({ partition, offset: state.next });
    }
    return points;
  }

  /** These points are committed. */
  committed(points: readonly CommitPoint[]): void {
    for (const point of points) {
      const state = this.#partitions.get(point.partition);
      if (state !== undefined && (state.committed === undefined || point.offset > state.committed)) state.committed = point.offset;
    }
  }

  /** The partition's end as the last fetch saw it. */
  setEnd(partition: number, end: number): void {
    const state = this.#partitions.get(partition);
    if (state !== undefined) state.end = end;
  }

  /** Per owned partition: messages read and not yet durable, and the lag (end - committed position). */
  positions(): Array<{ partition: number; inProgress: number; committed: number | undefined; lag: number | undefined }> {
    return this.assigned().map((partition) => {
      const state = this.#partitions.get(partition) as PartitionOffsets;
      // Before anything is done here, the group's position is where this assignment began reading.
      const position = state.committed ?? state.next ?? state.first;
      const lag = state.end === undefined ? undefined : Math.max(0, state.end - (position ?? state.end));
      return { partition, inProgress: state.pending.size, committed: state.committed, lag };
    });
  }
}
