// Package inventory keeps stock levels for a small warehouse service.
package inventory

import (
	"errors"
	"fmt"
	str "strings"
	"sync"
)

// MaxItems bounds how many distinct SKUs a store may hold.
const MaxItems = 1000

const (
	DefaultRegion = "eu-west"
	retryLimit    = 3
)

// ErrNotFound is returned when a SKU is unknown.
var ErrNotFound = errors.New("inventory: sku not found")

// Status describes where an item is in its life cycle.
type Status int

const (
	Active Status = iota
	Discontinued
)

// SKU is a stock keeping unit code.
type SKU = string

// Item is one product line held in stock.
type Item struct {
	Code     SKU
	Name     string
	Quantity int
	State    Status
	Location struct {
		Aisle int
		Shelf int
	}
}

// Repository persists items.
type Repository interface {
	Load(code SKU) (*Item, error)
	Save(item *Item) error
}

// Store is an in-memory Repository guarded by a mutex.
type Store struct {
	mu    sync.Mutex
	items map[SKU]*Item
}

// AuditedStore is a Store that also keeps a log of saved codes.
type AuditedStore struct {
	*Store
	saved []SKU
}

// NewStore builds an empty store.
func NewStore() *Store {
	return &Store{items: make(map[SKU]*Item)}
}

// Load returns the item with the given code.
func (s *Store) Load(code SKU) (*Item, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	item, ok := s.items[normalize(code)]
	if !ok {
		return nil, fmt.Errorf("load %s: %w", code, ErrNotFound)
	}
	return item, nil
}

// Save inserts or replaces an item.
func (s *Store) Save(item *Item) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.items) >= MaxItems {
		return errors.New("inventory: store is full")
	}
	s.items[normalize(item.Code)] = item
	return nil
}

// Restock adds quantity to an existing item, retrying transient failures.
func Restock(repo Repository, code SKU, amount int) error {
	var lastErr error
	for attempt := 0; attempt < retryLimit; attempt++ {
		item, err := repo.Load(code)
		if err != nil {
			lastErr = err
			continue
		}
		item.Quantity += amount
		return repo.Save(item)
	}
	return lastErr
}

func (st Status) String() string {
	switch st {
	case Active:
		return "active"
	default:
		return "discontinued"
	}
}

func normalize(code SKU) SKU {
	const prefix = "SKU-"
	trimmed := str.TrimSpace(code)
	return prefix + str.ToUpper(trimmed)
}
