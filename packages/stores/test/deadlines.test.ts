import { afterEach, beforeEach, describe, expect, it, vi } from "vitest"
import { Deadlines, Expiring } from "../src/redis/deadlines.js"

class Item extends Expiring {
  expired = 0
  constructor(readonly onExpire: () => void = () => {}) {
    super()
  }
  expire(): void {
    this.expired++
    this.onExpire()
  }
}

describe("Deadlines (one timer for every pending command)", () => {
  beforeEach(() => {
    vi.useFakeTimers()
  })
  afterEach(() => {
    vi.useRealTimers()
  })

  it("an item expires exactly at its deadline, not a millisecond before", () => {
    const deadlines = new Deadlines(100)
    const item = new Item()
    deadlines.add(item)
    vi.advanceTimersByTime(99)
    expect(item.expired).toBe(0)
    vi.advanceTimersByTime(1)
    expect(item.expired).toBe(1)
    expect(deadlines.size).toBe(0)
  })

  it("a deleted (settled) item never expires, and the timer re-arms for the next pending one", () => {
    const deadlines = new Deadlines(100)
    const settled = new Item()
    const late = new Item()
    deadlines.add(settled)
    vi.advanceTimersByTime(40)
    deadlines.add(late) // deadline at 140
    deadlines.delete(settled)
    vi.advanceTimersByTime(60) // 100: the timer fires for `settled`, finds it gone, re-arms for 140
    expect(settled.expired).toBe(0)
    expect(late.expired).toBe(0)
    vi.advanceTimersByTime(39)
    expect(late.expired).toBe(0)
    vi.advanceTimersByTime(1)
    expect(late.expired).toBe(1)
    expect(settled.expired).toBe(0)
  })

  it("expires due items in deadline order, once each, and deletes twice harmlessly", () => {
    const deadlines = new Deadlines(50)
    const order: string[] = []
    const items = ["a", "b", "c"].map((name) => new Item(() => order.push(name)))
    for (const item of items) {
      deadlines.add(item)
      vi.advanceTimersByTime(10)
    }
    vi.advanceTimersByTime(100)
    expect(order).toEqual(["a", "b", "c"])
    for (const item of items) deadlines.delete(item)
    expect(items.map((i) => i.expired)).toEqual([1, 1, 1])
    expect(deadlines.size).toBe(0)
  })

  it("adding an item again restarts its deadline (a retried command gets a full bound)", () => {
    const deadlines = new Deadlines(100)
    const item = new Item()
    deadlines.add(item)
    vi.advanceTimersByTime(80)
    deadlines.add(item)
    expect(deadlines.size).toBe(1)
    vi.advanceTimersByTime(99)
    expect(item.expired).toBe(0)
    vi.advanceTimersByTime(1)
    expect(item.expired).toBe(1)
  })

  it("an item added while another expires is watched too", () => {
    const deadlines = new Deadlines(100)
    const next = new Item()
    const first = new Item(() => deadlines.add(next))
    deadlines.add(first)
    vi.advanceTimersByTime(100)
    expect(first.expired).toBe(1)
    expect(deadlines.size).toBe(1)
    vi.advanceTimersByTime(100)
    expect(next.expired).toBe(1)
    expect(vi.getTimerCount()).toBe(0)
  })
})
