/* SPDX-License-Identifier: MIT */
/* Calls every method of the four XPTI C++ interfaces on objects made by our C
 * dispatcher, the way a G3 SYCL runtime compiled against the upstream headers
 * would. The declarations below are written here from xpti-facts.md (section
 * 2: slot order; section 3: layouts), not taken from upstream headers. */
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <unordered_map>

namespace xpti
{
using result_t = int32_t;
using object_id_t = int32_t;
using string_id_t = uint32_t;
constexpr result_t result_success = 0;
constexpr result_t result_false = 1;

struct payload_t {
    const char *name;
    const char *stack_trace;
    const char *source_file;
    uint32_t line_no, column_no;
    const void *code_ptr_va;
    uint64_t internal;
    uint64_t flags;
    uint64_t uid[3];
};

struct trace_event_data_t {
    uint64_t unique_id, data_id, instance_id;
    uint16_t event_type, activity_type;
    uint32_t unused;
    uint64_t source_id, target_id;
    payload_t *payload;
    std::unordered_map<string_id_t, object_id_t> metadata;
    void *global_user_data;
    uint64_t flags;
};
static_assert(sizeof(trace_event_data_t) == 128, "libstdc++ map is 56 bytes");
} // namespace xpti

/* FNV-1a-32 (offset basis 2166136261, prime 16777619), the key's ids. */
static uint32_t fnv1a32(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

struct xpti_payload_t {
    virtual ~xpti_payload_t() {}
    virtual const char *name() const = 0;
    virtual const char *source_file() const = 0;
    virtual uint32_t line_no() const = 0;
    virtual uint32_t column_no() const = 0;
    virtual uint64_t payload_flags() const = 0;
    virtual int32_t name_string_id() const = 0;
    virtual int32_t file_string_id() const = 0;
    virtual uint64_t uid64() const = 0;
    virtual bool is_valid() const = 0;
    virtual xpti::payload_t *payload_ref() = 0;
};

struct xpti_metadata_t {
    virtual ~xpti_metadata_t() {}
    virtual xpti::result_t first_item(char **key, xpti::object_id_t &value) = 0;
    virtual xpti::result_t next_item(char **key, xpti::object_id_t &value) = 0;
    virtual xpti::result_t add_item(const char *key, xpti::object_id_t value) = 0;
    virtual size_t count() = 0;
};

struct xpti_trace_event_t {
    virtual ~xpti_trace_event_t() {}
    virtual xpti_payload_t *payload() = 0;
    virtual xpti_metadata_t *metadata() = 0;
    virtual uint64_t uid64() const = 0;
    virtual uint64_t instance() const = 0;
    virtual uint16_t event_type() const = 0;
    virtual uint16_t activity_type() const = 0;
    virtual uint64_t source_uid64() const = 0;
    virtual uint64_t target_uid64() const = 0;
    virtual uint64_t event_flags() const = 0;
    virtual void set_activity_type(int type) = 0;
    virtual void set_event_type(uint16_t type) = 0;
    virtual xpti::payload_t *payload_ref() = 0;
    virtual xpti::trace_event_data_t *event_ref() = 0;
};

struct xpti_tracepoint_t {
    virtual ~xpti_tracepoint_t() {}
    virtual xpti_payload_t *payload() = 0;
    virtual xpti_metadata_t *metadata() = 0;
    virtual xpti_trace_event_t *event() = 0;
    virtual uint64_t uid64() const = 0;
    virtual uint64_t instance() const = 0;
    virtual xpti::trace_event_data_t *event_ref() = 0;
    virtual xpti::payload_t *payload_ref() = 0;
};

extern "C" {
xpti_tracepoint_t *xptiCreateTracepoint(const char *, const char *, uint32_t, uint32_t, void *);
const xpti_payload_t *xptiLookupPayload(uint64_t);
const xpti_trace_event_t *xptiLookupEvent(uint64_t);
xpti::result_t xptiAddMetadata(xpti::trace_event_data_t *, const char *, xpti::object_id_t);
std::unordered_map<xpti::string_id_t, xpti::object_id_t> *
xptiQueryMetadata(xpti::trace_event_data_t *);
const char *xptiLookupString(xpti::string_id_t);
xpti::string_id_t xptiRegisterString(const char *, char **);
}

static int checks, failures;
/* The plan, printed first: a check that never runs is a failure, not a
 * shorter count. */
static const int planned = 37;

/* Each planned check that did not run fails; so does running more. */
static int done()
{
    int ran = checks;
    while (checks < planned) {
        ++checks;
        ++failures;
        std::printf("not ok %d - planned check %d of %d never ran (only %d ran)\n", checks, checks,
                    planned, ran);
    }
    if (ran > planned) {
        ++failures;
        std::printf("# %d checks ran, %d were planned\n", ran, planned);
    }
    return failures ? 1 : 0;
}

static void ok(bool cond, const char *what)
{
    ++checks;
    failures += !cond;
    std::printf("%s %d - %s\n", cond ? "ok" : "not ok", checks, what);
}

int main()
{
    int here;
    std::printf("1..%d\n", planned);
    xpti_tracepoint_t *tp = xptiCreateTracepoint("cxx_fn", "cxx.cpp", 11, 3, &here);
    xpti_tracepoint_t *tp2 = xptiCreateTracepoint("cxx_fn", "cxx.cpp", 11, 3, &here);
    ok(tp && tp2, "two tracepoints created");
    if (!tp || !tp2)
        return done();
    xpti_payload_t *pl = tp->payload();
    xpti_trace_event_t *ev = tp->event();
    xpti_metadata_t *md = tp->metadata();
    ok(tp->instance() == 1 && tp2->instance() == 2, "tracepoint instance()");
    ok(tp->uid64() != 0 && tp->uid64() != tp2->uid64(), "tracepoint uid64()");
    ok(tp->event_ref()->unique_id == tp->uid64(), "tracepoint event_ref()");
    ok(tp->payload_ref() == tp->event_ref()->payload, "tracepoint payload_ref()");

    ok(std::strcmp(pl->name(), "cxx_fn") == 0, "payload name()");
    ok(std::strcmp(pl->source_file(), "cxx.cpp") == 0, "payload source_file()");
    ok(pl->line_no() == 11 && pl->column_no() == 3, "payload line_no() column_no()");
    ok((pl->payload_flags() & 0x8000) && (pl->payload_flags() & 0x4),
       "payload payload_flags(): registered, code pointer");
    /* As on Intel's framework (issue 34): the ids inside the key, i.e. the
     * FNV-1a-32 hashes of name and file in the default mode. */
    ok((uint32_t)pl->name_string_id() == fnv1a32("cxx_fn") &&
           (uint32_t)pl->file_string_id() == fnv1a32("cxx.cpp"),
       "payload name_string_id() file_string_id() are the key's FNV-1a ids");
    ok(pl->uid64() == tp->uid64(), "payload uid64()");
    ok(pl->is_valid(), "payload is_valid()");
    ok(pl->payload_ref() == tp->payload_ref(), "payload payload_ref()");

    ok(ev->payload() == pl && ev->metadata() == md, "event payload() metadata()");
    ok(ev->uid64() == tp->uid64() && ev->instance() == 1, "event uid64() instance()");
    ok(ev->event_type() == 2 && ev->activity_type() == 1, "event event_type() activity_type()");
    ok(ev->source_uid64() == 0 && ev->target_uid64() == 0, "event source/target_uid64()");
    ok((ev->event_flags() & 0x3f) == (1 | 8 | 16 | 32), "event event_flags()");
    ev->set_activity_type(4);
    ev->set_event_type(5);
    ok(ev->activity_type() == 4 && ev->event_ref()->event_type == 5,
       "event set_activity_type() set_event_type()");
    ok(ev->payload_ref() == tp->payload_ref() && ev->event_ref() == tp->event_ref(),
       "event payload_ref() event_ref()");

    char *key = nullptr;
    xpti::object_id_t value = 0;
    ok(md->count() == 0 && md->first_item(&key, value) == xpti::result_false,
       "empty metadata: count() 0, first_item() FALSE");
    ok(md->add_item("kernel_name", 11) == xpti::result_success, "metadata add_item()");
    ok(xptiAddMetadata(tp->event_ref(), "sym_line_no", 12) == xpti::result_success,
       "xptiAddMetadata on the same event");
    ok(md->count() == 2, "metadata count()");
    ok(md->first_item(&key, value) == xpti::result_success &&
           std::strcmp(key, "kernel_name") == 0 && value == 11,
       "metadata first_item()");
    ok(md->next_item(&key, value) == xpti::result_success && std::strcmp(key, "sym_line_no") == 0 &&
           value == 12,
       "metadata next_item()");
    ok(md->next_item(&key, value) == xpti::result_false, "metadata next_item() at the end");
    ok(tp2->metadata()->count() == 0, "another instance has its own metadata");

    ok(xptiLookupPayload(tp->uid64()) == pl, "xptiLookupPayload(uid) is the payload interface");
    ok(xptiLookupEvent(tp->uid64()) == ev, "xptiLookupEvent(uid) is the event interface");
    ok(xptiLookupEvent(0) == nullptr && xptiLookupEvent(10000) == nullptr,
       "xptiLookupEvent of unknown ids is NULL");

    /* xptiQueryMetadata's map, read by real libstdc++ (issue 34: Intel's
     * basic_collector iterates it; Intel's tests use size() and find()). */
    auto *map = xptiQueryMetadata(tp->event_ref());
    char *table = nullptr;
    xpti::string_id_t kn = xptiRegisterString("kernel_name", &table);
    xpti::string_id_t ln = xptiRegisterString("sym_line_no", &table);
    ok(map == &tp->event_ref()->metadata, "xptiQueryMetadata points into the event");
    int walked = 0, sum = 0;
    for (const auto &item : *map) {
        walked++;
        sum += item.second;
    }
    ok(map->size() == 2 && walked == 2 && sum == 23, "the C++ map holds both items");
    ok(map->find(kn) != map->end() && map->find(kn)->second == 11 && map->count(ln) == 1 &&
           map->at(ln) == 12 && map->find(kn + ln + 1000) == map->end(),
       "find()/count()/at() in the C++ map");
    xptiAddMetadata(tp->event_ref(), "sycl_device_name", 13);
    map = xptiQueryMetadata(tp->event_ref());
    ok(map->size() == 3 && map->count(ln) == 1, "a later item shows in the next query");
    /* 20 keys whose string ids are 29 apart: with 29 buckets they all share
     * one, so lookups walk a chain. */
    xpti_tracepoint_t *tp3 = xptiCreateTracepoint("cxx_chain", "cxx.cpp", 99, 1, nullptr);
    xpti::string_id_t ids[20];
    char name[32];
    for (int i = 0; i < 20; i++) {
        std::snprintf(name, sizeof(name), "chain_%d", i);
        ids[i] = xptiRegisterString(name, &table);
        xptiAddMetadata(tp3->event_ref(), name, 100 + i);
        for (int f = 0; f < 28; f++) {
            std::snprintf(name, sizeof(name), "filler_%d_%d", i, f);
            xptiRegisterString(name, &table);
        }
    }
    auto *chain = xptiQueryMetadata(tp3->event_ref());
    bool all = chain->size() == 20 && chain->bucket_count() == 29 &&
               chain->bucket(ids[0]) == chain->bucket(ids[19]);
    for (int i = 0; i < 20; i++)
        all = all && chain->count(ids[i]) == 1 && chain->at(ids[i]) == 100 + i;
    ok(all, "20 items in one bucket: every find() walks the chain right");
    auto *empty = xptiQueryMetadata(tp2->event_ref());
    ok(empty->empty() && empty->begin() == empty->end() && empty->find(kn) == empty->end(),
       "an event without metadata reads as an empty map");
    return done();
}
