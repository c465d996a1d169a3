/** Something with a deadline: `expire` runs once when it passes while still pending. */
export abstract class Expiring {
  /** Epoch ms; set by {@link Deadlines.add}. */
  deadline = 0
  /** Links of the pending queue (intrusive: joining and leaving it allocates and hashes nothing). */
  prev: Expiring | undefined = undefined
  next: Expiring | undefined = undefined
  pending = false
  abstract expire(): void
}

/**
 * The deadlines of pending commands, watched by one timer for all of them. A timer per command
 * (setTimeout + clearTimeout) cost measurable time on every round trip; here a command only
 * joins and leaves a linked queue. Every deadline is `now + timeoutMs`, so queue order is
 * deadline order: the timer is armed for the oldest pending deadline only, and on firing expires
 * what is due and re-arms for the next. A command still expires at its own deadline.
 */
export class Deadlines {
  private head: Expiring | undefined = undefined
  private tail: Expiring | undefined = undefined
  private count = 0
  private timer: ReturnType<typeof setTimeout> | undefined

  constructor(
    private readonly timeoutMs: number,
    private readonly now: () => number = Date.now
  ) {}

  /** Starts (or restarts, at the back of the queue) `item`'s deadline, `timeoutMs` from now. */
  add(item: Expiring): void {
    this.delete(item)
    item.deadline = this.now() + this.timeoutMs
    item.prev = this.tail
    item.next = undefined
    if (this.tail === undefined) this.head = item
    else this.tail.next = item
    this.tail = item
    item.pending = true
    this.count++
    if (this.timer === undefined) this.arm(item.deadline)
  }

  /** `item` settled: it will not expire. The timer stays armed; it finds nothing due and re-arms or idles. */
  delete(item: Expiring): void {
    if (!item.pending) return
    if (item.prev === undefined) this.head = item.next
    else item.prev.next = item.next
    if (item.next === undefined) this.tail = item.prev
    else item.next.prev = item.prev
    item.prev = undefined
    item.next = undefined
    item.pending = false
    this.count--
  }

  /** Pending items (for tests and diagnostics). */
  get size(): number {
    return this.count
  }

  private arm(deadline: number): void {
    clearTimeout(this.timer)
    this.timer = setTimeout(this.sweep, Math.max(1, deadline - this.now()))
    // A pending command's own promise keeps nothing alive; neither does its deadline.
    this.timer.unref?.()
  }

  private readonly sweep = (): void => {
    this.timer = undefined
    const now = this.now()
    for (let item = this.head; item !== undefined; item = this.head) {
      if (item.deadline > now) {
        this.arm(item.deadline)
        return
      }
      this.delete(item)
      item.expire()
    }
  }
}
