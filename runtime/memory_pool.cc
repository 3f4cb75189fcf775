//===- memory_pool.cc - The stream-ordered caching device memory pool -----===//
#include "runtime/memory_pool.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace gpuc::runtime {
namespace {

std::string FormatBytes(size_t bytes) {
  if (bytes < (size_t{1} << 20)) return absl::StrCat(bytes, " bytes");
  return absl::StrFormat("%zu bytes (%.1f MiB)", bytes, static_cast<double>(bytes) / (1 << 20));
}

size_t RoundUp(size_t value, size_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

}  // namespace

/// A contiguous piece of a segment. Blocks of one segment form a doubly linked list in address
/// order; the segment's chain owns them (they are deleted when merged away or released).
struct MemoryPool::Block {
  uint64_t address = 0;
  size_t size = 0;
  StreamId stream = 0;
  bool small = false;
  bool allocated = false;
  bool pending = false;  // freed, waiting for events on other streams
  Block* prev = nullptr;
  Block* next = nullptr;
  Segment* segment = nullptr;
  std::vector<StreamId> other_stream_uses;

  bool IsFree() const { return !allocated && !pending; }
};

/// One allocation from the device, carved into blocks.
struct MemoryPool::Segment {
  uint64_t address = 0;
  size_t size = 0;
  Block* head = nullptr;
};

bool MemoryPool::BySizeThenAddress::operator()(const Block* a, const Block* b) const {
  return a->size != b->size ? a->size < b->size : a->address < b->address;
}

std::string PoolStats::ToString() const {
  return absl::StrCat("in use ", FormatBytes(bytes_in_use), ", cached ",
                      FormatBytes(bytes_cached()), ", peak in use ", FormatBytes(peak_bytes_in_use),
                      ", allocations ", allocations, " (cache hits ", cache_hits,
                      "), device allocations ", device_allocations, ", device frees ",
                      device_frees);
}

MemoryPool::MemoryPool(std::unique_ptr<DeviceMemoryBackend> backend)
    : backend_(std::move(backend)) {}

MemoryPool::~MemoryPool() {
  for (PendingFree& p : pending_frees_) {
    for (EventId e : p.events) backend_->DestroyEvent(e);
  }
  for (const std::unique_ptr<Segment>& segment : segments_) {
    for (Block* b = segment->head; b != nullptr;) {
      Block* next = b->next;
      delete b;
      b = next;
    }
    backend_->Free(segment->address);
  }
}

size_t MemoryPool::RoundedSize(size_t bytes) {
  return std::max(kRoundBytes, RoundUp(bytes, kRoundBytes));
}

MemoryPool::FreeList& MemoryPool::FreeListFor(StreamId stream, bool small) {
  return free_lists_[{stream, small}];
}

MemoryPool::Block* MemoryPool::FindFreeBlock(size_t size, StreamId stream, bool small) {
  FreeList& list = FreeListFor(stream, small);
  Block probe;
  probe.size = size;
  auto it = list.lower_bound(&probe);  // the smallest block that fits: best fit
  if (it == list.end()) return nullptr;
  Block* block = *it;
  list.erase(it);
  return block;
}

absl::StatusOr<MemoryPool::Block*> MemoryPool::AllocateSegment(size_t size, StreamId stream,
                                                               bool small) {
  size_t segment_size = small ? kSmallSegmentBytes : RoundUp(size, kLargeSegmentRounding);
  if (limit_ != 0 && stats_.bytes_reserved + segment_size > limit_) {
    return absl::ResourceExhaustedError("the pool's limit");
  }
  absl::StatusOr<uint64_t> address = backend_->Allocate(segment_size);
  if (!address.ok()) return address.status();
  auto segment = std::make_unique<Segment>();
  segment->address = *address;
  segment->size = segment_size;
  Block* block = new Block;
  block->address = *address;
  block->size = segment_size;
  block->stream = stream;
  block->small = small;
  block->segment = segment.get();
  segment->head = block;
  segments_.push_back(std::move(segment));
  stats_.bytes_reserved += segment_size;
  stats_.peak_bytes_reserved = std::max(stats_.peak_bytes_reserved, stats_.bytes_reserved);
  ++stats_.device_allocations;
  return block;
}

MemoryPool::Block* MemoryPool::SplitAndTake(Block* block, size_t size) {
  size_t remainder = block->size - size;
  bool split = block->small ? remainder >= kRoundBytes : remainder >= kMinLargeSplitRemainder;
  // Marked allocated first, so that the remainder does not merge straight back into it.
  block->allocated = true;
  if (split) {
    Block* rest = new Block;
    rest->address = block->address + size;
    rest->size = remainder;
    rest->stream = block->stream;
    rest->small = block->small;
    rest->segment = block->segment;
    rest->prev = block;
    rest->next = block->next;
    if (block->next) block->next->prev = rest;
    block->next = rest;
    block->size = size;
    InsertFree(rest);
  }
  return block;
}

void MemoryPool::InsertFree(Block* block) {
  block->allocated = false;
  block->pending = false;
  block->other_stream_uses.clear();
  FreeList& list = FreeListFor(block->stream, block->small);
  // Merge with free neighbours; they are in the same free list (one segment, one stream).
  if (Block* prev = block->prev; prev && prev->IsFree()) {
    list.erase(prev);
    prev->size += block->size;
    prev->next = block->next;
    if (block->next) block->next->prev = prev;
    delete block;
    block = prev;
  }
  if (Block* next = block->next; next && next->IsFree()) {
    list.erase(next);
    block->size += next->size;
    block->next = next->next;
    if (next->next) next->next->prev = block;
    delete next;
  }
  list.insert(block);
}

void MemoryPool::ProcessPendingFrees() {
  auto done = [&](PendingFree& p) {
    for (EventId e : p.events) {
      if (!backend_->EventCompleted(e)) return false;
    }
    for (EventId e : p.events) backend_->DestroyEvent(e);
    InsertFree(p.block);
    return true;
  };
  pending_frees_.erase(std::remove_if(pending_frees_.begin(), pending_frees_.end(), done),
                       pending_frees_.end());
}

size_t MemoryPool::ReleaseFreeSegments() {
  size_t released = 0;
  auto release = [&](std::unique_ptr<Segment>& segment) {
    Block* head = segment->head;
    if (!head->IsFree() || head->next != nullptr) return false;
    FreeListFor(head->stream, head->small).erase(head);
    backend_->Free(segment->address);
    stats_.bytes_reserved -= segment->size;
    ++stats_.device_frees;
    released += segment->size;
    delete head;
    return true;
  };
  segments_.erase(std::remove_if(segments_.begin(), segments_.end(), release), segments_.end());
  return released;
}

absl::Status MemoryPool::OutOfMemory(size_t size) {
  ++stats_.out_of_memory;
  std::string limit = limit_ == 0 ? "none" : FormatBytes(limit_);
  return absl::ResourceExhaustedError(
      absl::StrCat("out of device memory: asked for ", FormatBytes(size), "; the pool has ",
                   FormatBytes(stats_.bytes_in_use), " in use and ",
                   FormatBytes(stats_.bytes_cached()), " cached, limit ", limit,
                   "; the device reports ", FormatBytes(backend_->DeviceFreeBytes()), " free"));
}

absl::StatusOr<uint64_t> MemoryPool::Allocate(size_t bytes, StreamId stream) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (bytes > (size_t{1} << 62)) return OutOfMemory(bytes);  // RoundUp would overflow
  const size_t size = RoundedSize(bytes);
  const bool small = size <= kSmallLimitBytes;
  if (backend_->IsCapturing(stream)) {
    return absl::FailedPreconditionError(
        absl::StrCat("allocation of ", FormatBytes(size),
                     " on a stream that is being captured into a CUDA "
                     "graph: allocate the graph's buffers before the capture begins"));
  }
  if (!pending_frees_.empty()) ProcessPendingFrees();
  Block* block = FindFreeBlock(size, stream, small);
  if (block) {
    ++stats_.cache_hits;
  } else {
    // The out-of-memory ladder: each rung gives back more before trying again.
    absl::StatusOr<Block*> fresh = AllocateSegment(size, stream, small);
    if (!fresh.ok() && ReleaseFreeSegments() > 0) fresh = AllocateSegment(size, stream, small);
    if (!fresh.ok()) {
      // Frees waiting on other streams complete once the device is idle.
      if (absl::Status s = backend_->Synchronize(); !s.ok()) return s;
      ProcessPendingFrees();
      if (Block* reused = FindFreeBlock(size, stream, small)) {
        fresh = reused;
      } else {
        ReleaseFreeSegments();
        fresh = AllocateSegment(size, stream, small);
      }
    }
    if (!fresh.ok()) return OutOfMemory(size);
    block = *fresh;
  }
  block = SplitAndTake(block, size);
  allocated_[block->address] = block;
  stats_.bytes_in_use += block->size;
  stats_.peak_bytes_in_use = std::max(stats_.peak_bytes_in_use, stats_.bytes_in_use);
  ++stats_.allocations;
  return block->address;
}

absl::StatusOr<MemoryPool::Block*> MemoryPool::FindAllocated(uint64_t address,
                                                             absl::string_view operation) const {
  auto it = allocated_.find(address);
  if (it == allocated_.end()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s of 0x%x, which is not a live allocation of the memory pool (never allocated, or "
        "freed twice)",
        operation, address));
  }
  return it->second;
}

absl::Status MemoryPool::Free(uint64_t address) {
  std::lock_guard<std::mutex> lock(mutex_);
  absl::StatusOr<Block*> found = FindAllocated(address, "free");
  if (!found.ok()) return found.status();
  Block* block = *found;
  allocated_.erase(address);
  stats_.bytes_in_use -= block->size;
  if (block->other_stream_uses.empty()) {
    InsertFree(block);
    return absl::OkStatus();
  }
  PendingFree pending{block, {}};
  for (StreamId s : block->other_stream_uses) {
    absl::StatusOr<EventId> event = backend_->RecordEvent(s);
    if (!event.ok()) {
      // Without an event the block cannot be proven idle: wait for the device instead.
      for (EventId e : pending.events) backend_->DestroyEvent(e);
      if (absl::Status sync = backend_->Synchronize(); !sync.ok()) return sync;
      InsertFree(block);
      return absl::OkStatus();
    }
    pending.events.push_back(*event);
  }
  block->pending = true;
  pending_frees_.push_back(std::move(pending));
  return absl::OkStatus();
}

absl::Status MemoryPool::RecordStreamUse(uint64_t address, StreamId stream) {
  std::lock_guard<std::mutex> lock(mutex_);
  absl::StatusOr<Block*> found = FindAllocated(address, "stream use");
  if (!found.ok()) return found.status();
  Block* block = *found;
  std::vector<StreamId>& uses = block->other_stream_uses;
  if (stream != block->stream && std::find(uses.begin(), uses.end(), stream) == uses.end()) {
    uses.push_back(stream);
  }
  return absl::OkStatus();
}

void MemoryPool::FreeCachedBlocks() {
  std::lock_guard<std::mutex> lock(mutex_);
  ProcessPendingFrees();
  ReleaseFreeSegments();
}

void MemoryPool::SetLimit(size_t bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  limit_ = bytes;
  if (limit_ != 0 && stats_.bytes_reserved > limit_) {
    ProcessPendingFrees();
    ReleaseFreeSegments();
  }
}

size_t MemoryPool::limit() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return limit_;
}

PoolStats MemoryPool::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

}  // namespace gpuc::runtime
