// GPU memory of the WebGPU kernel table: one storage buffer, the arena, that every kernel binds
// whole. An address is a byte offset into it (what the CUDA table's device pointers are to its
// arena), so pointer arithmetic on the C++ side (a head's slice, a layer's weights) stays plain
// arithmetic, operands that share an allocation need no second binding (WebGPU forbids a
// writable binding overlapping another), and kernels read every operand through one
// `array<f32>` (ids by bitcast, byte masks by shifts).
//
// Allocation: first fit over a free list of 256-byte-aligned blocks, neighbours merged on free.
// Offset 0 is never handed out, so address 0 is the null pointer. When the arena is full it
// grows (doubling, up to the device's maxStorageBufferBindingSize): the contents move to a
// larger buffer in queue order, and addresses stay valid.

const ALIGN = 256;
const alignUp = (n) => Math.ceil(n / ALIGN) * ALIGN;

export class GpuArena {
  // device: a GPUDevice; bytes: the first capacity.
  constructor(device, { bytes = 1 << 24 } = {}) {
    this.device = device;
    this.limit = Math.min(device.limits.maxStorageBufferBindingSize, device.limits.maxBufferSize);
    this.capacity = 0;
    this.buffer = null;
    this.version = 0; // bumped when the buffer changes (bind groups are rebuilt)
    this.free = []; // [{ at, size }] sorted by at
    this.used = new Map(); // at -> size
    this.grow(Math.max(alignUp(bytes), 2 * ALIGN));
    this.free = [{ at: ALIGN, size: this.capacity - ALIGN }]; // [0, ALIGN) is null
  }

  grow(capacity) {
    if (capacity > this.limit) {
      throw new RangeError(
        `WebGPU arena: ${capacity} bytes exceed this device's storage binding limit of ${this.limit} bytes`
      );
    }
    const buffer = this.device.createBuffer({
      size: capacity,
      usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST,
    });
    if (this.buffer) {
      const enc = this.device.createCommandEncoder();
      enc.copyBufferToBuffer(this.buffer, 0, buffer, 0, this.capacity);
      this.pending?.(); // the table submits its encoded work first (queue order)
      this.device.queue.submit([enc.finish()]);
      const old = this.buffer;
      this.device.queue.onSubmittedWorkDone().then(() => old.destroy());
      const last = this.free.at(-1);
      if (last && last.at + last.size === this.capacity) last.size += capacity - this.capacity;
      else this.free.push({ at: this.capacity, size: capacity - this.capacity });
    }
    this.buffer = buffer;
    this.capacity = capacity;
    this.version += 1;
  }

  // A zero-filled block of `bytes`; returns its address.
  alloc(bytes) {
    if (!(bytes >= 0) || !Number.isFinite(bytes)) throw new RangeError(`WebGPU arena: cannot allocate ${bytes} bytes`);
    const size = alignUp(Math.max(bytes, 4));
    let i = this.free.findIndex((b) => b.size >= size);
    while (i < 0) {
      this.grow(Math.min(this.limit, Math.max(this.capacity * 2, this.capacity + size)));
      i = this.free.findIndex((b) => b.size >= size);
      if (i < 0 && this.capacity === this.limit) throw new RangeError(`WebGPU arena: out of memory for ${bytes} bytes`);
    }
    const block = this.free[i];
    const at = block.at;
    block.at += size;
    block.size -= size;
    if (block.size === 0) this.free.splice(i, 1);
    this.used.set(at, size);
    this.zero(at, size);
    return at;
  }

  release(at) {
    if (at === 0) return;
    const size = this.used.get(at);
    if (size === undefined) throw new Error(`WebGPU arena: ${at} is not an allocation`);
    this.used.delete(at);
    let i = this.free.findIndex((b) => b.at > at);
    if (i < 0) i = this.free.length;
    this.free.splice(i, 0, { at, size });
    const next = this.free[i + 1];
    if (next && at + size === next.at) {
      this.free[i].size += next.size;
      this.free.splice(i + 1, 1);
    }
    const prev = this.free[i - 1];
    if (prev && prev.at + prev.size === at) {
      prev.size += this.free[i].size;
      this.free.splice(i, 1);
    }
  }

  get usedBytes() {
    let s = 0;
    for (const v of this.used.values()) s += v;
    return s;
  }

  // Writes and reads in program order: work the table has encoded but not submitted goes first
  // (`pending`, set by the table), since a queue write lands before the next submit's commands.
  // zero() clears on the queue (clearBuffer): no host array the size of the range.
  zero(at, bytes) {
    if (at % 4) throw new RangeError(`WebGPU arena: zero at ${at} is not 4-byte aligned`);
    this.pending?.();
    const enc = this.device.createCommandEncoder();
    enc.clearBuffer(this.buffer, at, alignUp4(bytes));
    this.device.queue.submit([enc.finish()]);
  }

  // at: 4-byte aligned (a queue write's offset must be); a length that is not whole words is
  // padded with zeros to the word (the words of C++'s byte buffers are their own: Workspace).
  upload(at, data) {
    if (at % 4) throw new RangeError(`WebGPU arena: upload at ${at} is not 4-byte aligned`);
    this.pending?.();
    const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    const padded =
      bytes.byteLength % 4 ? Uint8Array.from({ length: alignUp4(bytes.byteLength) }, (_, k) => bytes[k] ?? 0) : bytes;
    this.device.queue.writeBuffer(this.buffer, at, padded);
  }

  // The bytes at [at, at + bytes) once the queue has run everything submitted before the call.
  async read(at, bytes) {
    this.pending?.();
    const size = alignUp4(bytes);
    const staging = this.device.createBuffer({ size, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
    const enc = this.device.createCommandEncoder();
    enc.copyBufferToBuffer(this.buffer, at, staging, 0, size);
    this.device.queue.submit([enc.finish()]);
    await staging.mapAsync(GPUMapMode.READ);
    const out = new Uint8Array(staging.getMappedRange().slice(0, bytes));
    staging.destroy();
    return out;
  }
}

const alignUp4 = (n) => Math.ceil(n / 4) * 4;
