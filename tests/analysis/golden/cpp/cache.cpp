// An LRU cache for rendered tiles, shared by the map renderer.
#include <list>
#include <memory>
#include <string>
#include <unordered_map>
#include "tiles/tile.hpp"

namespace render {

constexpr std::size_t kDefaultCapacity = 64;

using TileKey = std::string;

enum class Eviction { Oldest, Largest };

struct Stats {
    std::size_t hits = 0;
    std::size_t misses = 0;
};

class Store {
public:
    virtual ~Store() = default;
    virtual std::shared_ptr<Tile> fetch(const TileKey& key) = 0;
};

class TileCache : public Store {
public:
    explicit TileCache(std::size_t capacity = kDefaultCapacity);

    std::shared_ptr<Tile> fetch(const TileKey& key) override;
    void put(const TileKey& key, std::shared_ptr<Tile> tile);
    const Stats& stats() const { return stats_; }

private:
    struct Entry {
        TileKey key;
        std::shared_ptr<Tile> tile;
    };

    void evict();

    static constexpr std::size_t kMinCapacity = 1;
    std::size_t capacity_;
    std::list<Entry> order_;
    std::unordered_map<TileKey, std::list<Entry>::iterator> index_;
    Stats stats_;
};

TileCache::TileCache(std::size_t capacity) : capacity_(std::max(capacity, kMinCapacity)) {}

std::shared_ptr<Tile> TileCache::fetch(const TileKey& key) {
    auto found = index_.find(key);
    if (found == index_.end()) {
        ++stats_.misses;
        return nullptr;
    }
    ++stats_.hits;
    order_.splice(order_.begin(), order_, found->second);
    return found->second->tile;
}

void TileCache::put(const TileKey& key, std::shared_ptr<Tile> tile) {
    if (order_.size() >= capacity_) {
        evict();
    }
    order_.push_front(Entry{key, std::move(tile)});
    index_[key] = order_.begin();
}

void TileCache::evict() {
    const Entry& victim = order_.back();
    index_.erase(victim.key);
    order_.pop_back();
}

std::unique_ptr<Store> make_store(Eviction policy) {
    int unused_budget = 0;
    (void)policy;
    (void)unused_budget;
    return std::make_unique<TileCache>(kDefaultCapacity);
}

}  // namespace render

int main() {
    auto store = render::make_store(render::Eviction::Oldest);
    store->fetch("0/0/0");
    return 0;
}
