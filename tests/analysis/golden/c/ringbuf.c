/* A fixed-size ring buffer of log records, shared by the collector threads. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ringbuf.h"
#include "util/clock.h"

#define RING_CAPACITY 256
#define RING_INDEX(i) ((i) % RING_CAPACITY)

typedef unsigned long seq_t;

enum level {
    LEVEL_DEBUG,
    LEVEL_INFO,
    LEVEL_ERROR
};

typedef enum { MODE_DROP, MODE_BLOCK } overflow_mode;

struct record {
    seq_t seq;
    enum level level;
    char text[128];
};

typedef struct ring {
    struct record slots[RING_CAPACITY];
    size_t head;
    size_t count;
    overflow_mode mode;
} ring_t;

typedef void (*record_fn)(const struct record *rec, void *ctx);

static const char *LEVEL_NAMES[] = {"debug", "info", "error"};
int ring_instances = 0;

static seq_t next_seq(void)
{
    static seq_t counter = 0;
    return ++counter;
}

ring_t *ring_create(overflow_mode mode)
{
    ring_t *ring = calloc(1, sizeof(*ring));
    if (ring == NULL) {
        return NULL;
    }
    ring->mode = mode;
    ring_instances++;
    return ring;
}

int ring_push(ring_t *ring, enum level level, const char *text)
{
    struct record *slot;
    if (ring->count == RING_CAPACITY && ring->mode == MODE_DROP) {
        return -1;
    }
    slot = &ring->slots[RING_INDEX(ring->head + ring->count)];
    slot->seq = next_seq();
    slot->level = level;
    strncpy(slot->text, text, sizeof(slot->text) - 1);
    if (ring->count < RING_CAPACITY) {
        ring->count++;
    } else {
        ring->head = RING_INDEX(ring->head + 1);
    }
    return 0;
}

void ring_each(const ring_t *ring, record_fn fn, void *ctx)
{
    size_t i;
    for (i = 0; i < ring->count; i++) {
        fn(&ring->slots[RING_INDEX(ring->head + i)], ctx);
    }
}

static void print_record(const struct record *rec, void *ctx)
{
    FILE *out = ctx;
    fprintf(out, "%lu [%s] %s\n", rec->seq, LEVEL_NAMES[rec->level], rec->text);
}

void ring_dump(const ring_t *ring)
{
    ring_each(ring, print_record, stdout);
    clock_flush();
}

void ring_destroy(ring_t *ring)
{
    free(ring);
    ring_instances--;
}
