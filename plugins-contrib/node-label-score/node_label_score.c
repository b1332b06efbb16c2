/*
 * node-label-score: a Scoria plugin in plain C99 that prefers nodes carrying
 * a label. Built against the installed SDK only (see the Makefile).
 *
 * Arguments, declared (ABI 1.2) so that the host refuses any other, a weight
 * that is not a number, and passes the default weight when it is left out:
 *   label   the label key to look for (required)
 *   value   if set, only nodes whose label has this value score
 *   weight  the score of a matching node (default 10; negative to avoid them)
 */
#include <scoria/scoria.h>

#include <stdlib.h>
#include <string.h>

static const scoria_host_api* host;
static const scoria_plugin_ctx* ctx;

/* No default for label and value: an absent label is an error, an absent
   value means any value. */
static const scoria_arg_spec args_declared[] = {
    {sizeof(scoria_arg_spec), SCORIA_ARG_STRING, "label", NULL,
     "the node label key to prefer (required)", NULL, 0, 0, 0, 0},
    {sizeof(scoria_arg_spec), SCORIA_ARG_STRING, "value", NULL,
     "only nodes whose label has this value score; any value when left out", NULL, 0, 0, 0, 0},
    {sizeof(scoria_arg_spec), SCORIA_ARG_FLOAT, "weight", "10",
     "the score of a matching node; negative to keep tasks away from such nodes", NULL, 0, 0, 0, 0},
};

typedef struct config {
  scoria_str key;   /* owned by the host's argument table, valid until on_destroy */
  scoria_str value; /* len 0 when any value matches */
  double weight;
} config;

static scoria_str cstr(const char* s) {
  scoria_str out;
  out.data = s;
  out.len = strlen(s);
  return out;
}

static int same(scoria_str a, scoria_str b) {
  return a.len == b.len && (a.len == 0 || memcmp(a.data, b.data, a.len) == 0);
}

static void write_error(char* buf, size_t cap, const char* msg) {
  size_t n = strlen(msg);
  if (cap == 0) return;
  if (n >= cap) n = cap - 1;
  memcpy(buf, msg, n);
  buf[n] = '\0';
}

static scoria_code on_create(const scoria_plugin_ctx* plugin_ctx, const scoria_args* args,
                             void** instance, char* error, size_t error_capacity) {
  config* c;
  (void)plugin_ctx;
  c = (config*)calloc(1, sizeof *c);
  if (c == NULL) {
    write_error(error, error_capacity, "out of memory");
    return SCORIA_ERROR;
  }
  if (args == NULL || host->args_get_string(args, cstr("label"), &c->key) != SCORIA_OK ||
      c->key.len == 0) {
    free(c);
    write_error(error, error_capacity, "argument \"label\" is required: the label key to prefer");
    return SCORIA_INVALID_ARGUMENT;
  }
  if (host->args_get_string(args, cstr("value"), &c->value) != SCORIA_OK) c->value.len = 0;
  /* The host has checked that weight is a number and passes 10 when the
     config leaves it out. */
  c->weight = 10;
  host->args_get_float(args, cstr("weight"), &c->weight);
  *instance = c;
  return SCORIA_OK;
}

static void on_destroy(void* instance) { free(instance); }

/* May run on several threads at once: it only reads. */
static scoria_code score(void* user_data, const scoria_task* task, const scoria_node* node,
                         double* out) {
  const config* c = (const config*)user_data;
  scoria_str have;
  (void)task;
  *out = 0;
  if (host->node_label(node, c->key, &have) != SCORIA_OK) return SCORIA_OK;
  if (c->value.len == 0 || same(have, c->value)) *out = c->weight;
  return SCORIA_OK;
}

static scoria_code on_session_open(void* instance, scoria_session* ssn, scoria_hooks* hooks) {
  (void)ssn;
  hooks->user_data = instance;
  hooks->on_node_order = score;
  return SCORIA_OK;
}

static const scoria_descriptor descriptor = {
    .struct_size = sizeof(scoria_descriptor),
    .abi_major = SCORIA_ABI_VERSION_MAJOR,
    .abi_minor = SCORIA_ABI_VERSION_MINOR,
    .name = "node-label-score",
    .kind = SCORIA_KIND_PLUGIN,
    .flags = SCORIA_FLAG_DECLARES_ARGS,
    .version = "1.0.0",
    .description = "Prefers nodes carrying a label (arguments: label, value, weight)",
    .on_create = on_create,
    .on_destroy = on_destroy,
    .on_session_open = on_session_open,
    .on_session_close = NULL,
    .on_execute = NULL,
    .args = args_declared,
    .arg_count = sizeof args_declared / sizeof args_declared[0],
};

SCORIA_DEFINE_PLUGIN_C(descriptor, host, ctx)
