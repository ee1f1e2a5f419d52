"""The C declarations the binding uses, copied from include/packsign.h.

This is the one place that describes libpacksign's structs and functions to
cffi (ABI mode: nothing is compiled).  Every struct declared here is the
header's struct field for field; tests/test_cdef.py compares each one's
size and field offsets, every enum's values and every prototype with
scripts/packsign.abi, the record scripts/check-abi keeps of the built
library, so a header change that breaks the binding fails the tests.
Structs the binding only passes by pointer (ps_trust, ps_pubkey,
ps_diff_side, ps_secret, ps_seckey, ps_atomic_file) are declared opaque.
"""

ABI_VERSION = 1  # PS_ABI_VERSION of the header this file was written for

CDEF = r"""
#define PS_ERROR_CODE_MAX 48
#define PS_ERROR_TEXT_MAX 1024
#define PS_ERROR_VALUE_MAX 512
#define PS_SHA256_LEN 32
#define PS_SHA256_STRING_LEN 72
#define PS_FINGERPRINT_MAX 52
#define PS_TIME_TEXT_LEN 21

typedef struct ps_trust ps_trust;
typedef struct ps_pubkey ps_pubkey;
typedef struct ps_diff_side ps_diff_side;
typedef struct ps_sigstore_root ps_sigstore_root;
struct ps_ceiling;

/* The C library's, for the strings packsign.h says the caller frees. */
void free(void *);
typedef enum ps_status {
    PS_STATUS_OK = 0,
    PS_STATUS_REFUSED = 1,
    PS_STATUS_FAILED = 2
} ps_status;
typedef struct ps_error {
    ps_status status;
    char code[PS_ERROR_CODE_MAX];
    char subject[PS_ERROR_TEXT_MAX];
    char message[PS_ERROR_TEXT_MAX];
    char expected[PS_ERROR_VALUE_MAX];
    char found[PS_ERROR_VALUE_MAX];
} ps_error;
typedef enum ps_severity {
    PS_SEVERITY_ERROR = 0,
    PS_SEVERITY_WARNING = 1
} ps_severity;
typedef struct ps_diag {
    ps_severity severity;
    char *file;
    unsigned line;
    unsigned column;
    char code[PS_ERROR_CODE_MAX];
    char *message;
} ps_diag;
typedef struct ps_diags {
    ps_diag *items;
    size_t count;
    size_t capacity;
} ps_diags;
typedef enum ps_entry_type {
    PS_ENTRY_FILE = 0,
    PS_ENTRY_DIR = 1
} ps_entry_type;
typedef struct ps_entry {
    char *path;
    ps_entry_type type;
    int executable;
    uint64_t size;
    unsigned char sha256[PS_SHA256_LEN];
} ps_entry;
typedef enum ps_format {
    PS_FORMAT_UNKNOWN = 0,
    PS_FORMAT_SOYAPACK,
    PS_FORMAT_HOLON,
    PS_FORMAT_AUTOGRAPH,
    PS_FORMAT_AGENTPACK
} ps_format;
typedef enum ps_source_kind {
    PS_SOURCE_DIRECTORY = 0,
    PS_SOURCE_TAR,
    PS_SOURCE_ZIP
} ps_source_kind;
typedef struct ps_digest {
    ps_source_kind source;
    ps_format format;
    char *manifest_path;
    unsigned char manifest_sha256[PS_SHA256_LEN];
    unsigned char tree_digest[PS_SHA256_LEN];
    int has_tar_digest;
    unsigned char tar_digest[PS_SHA256_LEN];
    int has_archive_digest;
    unsigned char archive_digest[PS_SHA256_LEN];
    int canonical;
    uint64_t total_size;
    int partial;
    size_t entry_count;
    ps_entry *entries;
} ps_digest;
typedef struct ps_copies ps_copies;
typedef struct ps_extract_limits {
    uint64_t max_total_size;
    uint64_t max_entries;
    uint64_t max_ratio;
    uint64_t ratio_floor;
    ps_copies *copies;
} ps_extract_limits;
typedef enum ps_compression {
    PS_COMPRESS_NONE = 0,
    PS_COMPRESS_GZIP,
    PS_COMPRESS_ZSTD
} ps_compression;
typedef struct ps_progress {
    const char *what;
    uint64_t files, files_total;
    uint64_t bytes, bytes_total;
    int done;
} ps_progress;
typedef struct ps_progress_sink {
    void (*fn)(void *ctx, const ps_progress *progress);
    void *ctx;
} ps_progress_sink;
typedef struct ps_pack_options {
    int64_t mtime;
    ps_compression compression;
    ps_progress_sink progress;
    ps_extract_limits limits;
} ps_pack_options;
typedef struct ps_validate_options {
    ps_format format;
    int strict;
    const char *engine_version;
    const char *prefix;
    int already_signed;
} ps_validate_options;
typedef struct ps_strings {
    char **items;
    size_t count;
} ps_strings;
typedef struct ps_prompt_file {
    char *path;
    unsigned line, column;
} ps_prompt_file;
typedef struct ps_egress {
    char *host;
    unsigned port;
    char *protocol;
} ps_egress;
typedef struct ps_permissions {
    int declared;
    int network, shell, read_knowledge, read_filesystem;
    char *file_write;
} ps_permissions;
typedef struct ps_port {
    char *text;
    char *host_ip;
    unsigned published;
    unsigned published_last;
    unsigned target;
    char *protocol;
} ps_port;
typedef struct ps_mount {
    char *source;
    char *target;
    int read_only;
} ps_mount;
typedef struct ps_service {
    char *name;
    char *file;
    unsigned line, column;
    char *image;
    ps_port *ports;
    size_t port_count;
    ps_mount *volumes;
    size_t volume_count;
    ps_mount *host_mounts;
    size_t host_mount_count;
    int privileged;
    char *network_mode;
    char *pid;
    char *ipc;
    int host_network;
    int host_pid;
    int host_ipc;
    ps_strings cap_add;
    ps_strings devices;
    ps_strings security_opt;
    char *user;
} ps_service;
typedef enum ps_task_cmd_kind {
    PS_TASK_CMD_SHELL = 0,
    PS_TASK_CMD_CALL = 1,
    PS_TASK_CMD_CHECK = 2
} ps_task_cmd_kind;
typedef struct ps_task_cmd {
    ps_task_cmd_kind kind;
    char *text;
    unsigned line, column;
} ps_task_cmd;
typedef struct ps_task {
    char *name;
    unsigned line, column;
    ps_task_cmd *cmds;
    size_t cmd_count;
} ps_task;
typedef struct ps_manifest {
    ps_format format;
    char *manifest_path;
    char *id;
    char *file_id;
    char *version;
    char *name;
    char *description;
    char *license;
    char *kind;
    char *domain;
    ps_strings signed_by;
    char *source_repository;
    char *source_commit;
    ps_prompt_file *prompts;
    size_t prompt_count;
    ps_egress *egress;
    size_t egress_count;
    ps_strings fs_read, fs_write;
    ps_strings tools;
    char *determinism_tier;
    ps_strings capabilities;
    ps_permissions permissions;
    char *retention;
    int training_use;
    char *endpoint;
    char *tool;
    long long timeout_s;
    char *price_worst_case;
    char *pricing_model;
    char *charge_on;
    char *engine_range;
    ps_strings services;
    ps_strings tasks;
    double price_worst_amount;
    char *price_currency;
    ps_service *compose_services;
    size_t compose_service_count;
    ps_task *taskfile_tasks;
    size_t taskfile_task_count;
    ps_strings code_files;
} ps_manifest;
typedef enum ps_lang {
    PS_LANG_EN = 0,
    PS_LANG_ZH = 1
} ps_lang;
typedef struct ps_inspection {
    ps_digest *digest;
    ps_manifest *manifest;
    ps_diags diags;
} ps_inspection;
typedef struct ps_verify_options {
    const ps_trust *trust;
    const char *sig_path;
    const char *signed_by;
    const char *source_repo;
    const char *source_commit;
    int require_source;
    int allow_dirty;
    const char *rebuild_from;
    int deep;
    int64_t at;
    ps_progress_sink progress;
    ps_extract_limits limits;
    const char *const *bundle_paths;
    size_t bundle_count;
    const ps_sigstore_root *sigstore_root;
} ps_verify_options;
typedef struct ps_verify_keyless {
    char signer_id[PS_FINGERPRINT_MAX];
    char *issuer;
    char *subject;
    char *repository;
    char *repository_id;
    char *owner_id;
    char *ref;
    char *commit;
    char *signer_workflow;
    char *config_workflow;
    char *trigger;
    char *runner;
    char *run_uri;
    char *authority;
    char *trusted_root;
    int reusable_workflow;
    int64_t signing_time;
    unsigned entry_line;
} ps_verify_keyless;
typedef struct ps_verify_signature {
    size_t index;
    char *keyid;
    char fingerprint[PS_FINGERPRINT_MAX];
    char *identity;
    int counted;
    char code[PS_ERROR_CODE_MAX];
    char *reason;
    size_t log_entry_count;
    size_t timestamp_count;
    int64_t *signing_times;
    size_t signing_time_count;
    ps_verify_keyless *keyless;
} ps_verify_signature;
typedef struct ps_sigstore_options {
    const ps_sigstore_root *root;
    const char *identity;
    const char *issuer;
    const char *key_path;
    int64_t at;
} ps_sigstore_options;
typedef struct ps_sigstore_artifact {
    const char *path;
    unsigned char sha256[PS_SHA256_LEN];
} ps_sigstore_artifact;
typedef struct ps_sigstore_log_entry {
    char *log_url;
    char log_id[129];
    int64_t log_index;
    char kind[32];
    char version[16];
    int rekor_version;
    int set_verified;
    int has_integrated_time;
    int64_t integrated_time;
    int proof_verified;
    int64_t tree_size;
    char root_hash[65];
    char *checkpoint_origin;
} ps_sigstore_log_entry;
typedef struct ps_sigstore_timestamp {
    int verified;
    int64_t time;
    int32_t nanoseconds;
    char *authority;
    char code[PS_ERROR_CODE_MAX];
    char *reason;
} ps_sigstore_timestamp;
typedef struct ps_sigstore_extension {
    char oid[64];
    char *value;
} ps_sigstore_extension;
typedef struct ps_sigstore_certificate {
    char *san;
    char *san_type;
    char *issuer;
    char *github_workflow_trigger;
    char *github_workflow_sha;
    char *github_workflow_name;
    char *github_workflow_repository;
    char *github_workflow_ref;
    char *build_signer_uri;
    char *build_signer_digest;
    char *runner_environment;
    char *source_repository_uri;
    char *source_repository_digest;
    char *source_repository_ref;
    char *source_repository_identifier;
    char *source_repository_owner_uri;
    char *source_repository_owner_identifier;
    char *build_config_uri;
    char *build_config_digest;
    char *build_trigger;
    char *run_invocation_uri;
    char *source_repository_visibility;
    ps_sigstore_extension *extensions;
    size_t extension_count;
    int64_t not_before, not_after;
    char serial[64];
    char sha256[65];
    char *authority;
    char *ct_log;
    int64_t sct_time_ms;
} ps_sigstore_certificate;
typedef struct ps_sigstore_result {
    unsigned steps;
    int bundle_version;
    int keyless;
    int dsse;
    char *payload_type;
    unsigned char *payload;
    size_t payload_len;
    char artifact_sha256[PS_SHA256_STRING_LEN];
    char key_details[40];
    char key_sha256[65];
    ps_sigstore_certificate certificate;
    ps_sigstore_log_entry *log_entries;
    size_t log_entry_count;
    ps_sigstore_timestamp *timestamps;
    size_t timestamp_count;
    int64_t *signing_times;
    size_t signing_time_count;
} ps_sigstore_result;
typedef struct ps_verify_identity {
    char *identity;
    char fingerprint[PS_FINGERPRINT_MAX];
} ps_verify_identity;
typedef enum ps_archive_read {
    PS_ARCHIVE_READ_NONE = 0,
    PS_ARCHIVE_READ_LEASE = 1,
    PS_ARCHIVE_READ_MEMORY = 2,
    PS_ARCHIVE_READ_FILE = 3,
    PS_ARCHIVE_READ_AGAIN = 4,
    PS_ARCHIVE_READ_PRIVATE = 5,
    PS_ARCHIVE_READ_CHUNKS = 6
} ps_archive_read;
typedef struct ps_verify_result {
    char *path;
    char *sig_path;
    int directory;
    ps_format format;
    char *id, *version, *name;
    unsigned threshold;
    ps_verify_identity *identities;
    size_t identity_count;
    ps_verify_signature *signatures;
    size_t signature_count;
    int has_source;
    char *source_repository;
    char *source_commit, *source_path;
    int source_dirty;
    char *source_manifest_ref;
    size_t prompt_count;
    int has_archive_digest, has_tar_digest, has_tree_digest;
    unsigned char archive_digest[PS_SHA256_LEN];
    unsigned char tar_digest[PS_SHA256_LEN];
    unsigned char tree_digest[PS_SHA256_LEN];
    int subject_checked;
    int tree_checked;
    int canonical_checked;
    int deep;
    int source_checked;
    int rebuild_checked;
    int ceilings_checked;
    ps_diags warnings;
    int source_certificate_checked;
    int source_certified;
    ps_archive_read archive_read;
    char *lease_declined;
} ps_verify_result;
typedef enum ps_diff_group {
    PS_DIFF_TRUST = 0,
    PS_DIFF_PERMISSIONS = 1,
    PS_DIFF_PROMPTS = 2,
    PS_DIFF_CODE = 3,
    PS_DIFF_OTHER = 4
} ps_diff_group;
typedef enum ps_diff_kind {
    PS_DIFF_ADDED = 0,
    PS_DIFF_REMOVED = 1,
    PS_DIFF_CHANGED = 2
} ps_diff_kind;
typedef struct ps_diff_change {
    ps_diff_group group;
    const char *field;
    char *subject;
    ps_diff_kind kind;
    char *old_value, *new_value;
    int widening;
    unsigned consent;
    char *text_diff;
    size_t lines_added, lines_removed;
    int text_truncated;
    const char *text_omitted;
} ps_diff_change;
typedef struct ps_diff {
    ps_format format;
    char *id;
    char *old_version, *new_version;
    int trusted;
    ps_diff_change *changes;
    size_t change_count;
    size_t files_added, files_removed, files_changed;
    unsigned widening_classes;
} ps_diff;
typedef struct ps_diff_options {
    ps_verify_options verify;
    size_t text_lines_max;
} ps_diff_options;
typedef struct ps_installed_signer {
    char *identity;
    char *fingerprint;
    ps_verify_keyless *keyless;
} ps_installed_signer;
typedef struct ps_consent_record {
    char *from_version;
    unsigned asked;
    unsigned widened;
    char *by;
} ps_consent_record;
typedef struct ps_install_plan {
    ps_format format;
    const char *id, *version, *name;
    const char *domain;
    const char *summary;
    const char *destination;
    const char *signer;
    const char *replaces_newest;
    const ps_diags *warnings;
    const struct ps_diff *diff;
    unsigned consent_needed;
} ps_install_plan;
typedef struct ps_install_options {
    ps_verify_options verify;
    const char *data_dir;
    int allow_shell;
    int allow_downgrade;
    int dry_run;
    ps_extract_limits limits;
    ps_lang lang;
    int (*confirm)(void *ctx, const ps_install_plan *plan);
    void *confirm_ctx;
    void (*waiting)(void *ctx, const char *lock_path);
    void *waiting_ctx;
    int64_t now;
    unsigned accept;
    const char *accept_diff;
    int (*consent)(void *ctx, const ps_install_plan *plan);
    void *consent_ctx;
    const char *consent_by;
    int allow_signer_change;
    int allow_source_change;
    int (*cancelled)(void *ctx);
    void *cancelled_ctx;
    int reinstall;
    int has_archive_fd;
    int archive_fd;
} ps_install_options;
typedef struct ps_install_result {
    ps_verify_result *verify;
    ps_format format;
    char *id, *version, *name, *domain;
    char *summary;
    char *path;
    char *receipt_path;
    int already_installed;
    int dry_run;
    int installed;
    unsigned char tree_digest[PS_SHA256_LEN];
    size_t file_count;
    uint64_t total_size;
    struct ps_diff *diff;
    unsigned consent_needed;
    ps_consent_record consent;
    int pinned;
    int reinstalled;
} ps_install_result;
typedef struct ps_fetch_options {
    const char *ca_file;
    const char *proxy;
    const char *no_proxy;
    const char *sig_url;
    uint64_t max_download;
    long connect_timeout;
    long low_speed_time;
    long timeout;
    ps_progress_sink progress;
    void (*temp_file_hook)(const char *path);
    int (*cancelled)(void *ctx);
    void *cancelled_ctx;
} ps_fetch_options;
typedef struct ps_installed {
    ps_format format;
    char *id, *version, *name;
    char *domain;
    char *path;
    char *receipt_path;
    char *sig_path;
    int newest;
    char *signer;
    char *fingerprint;
    char *source_repository;
    char *source_commit;
    char *permissions;
    char *archive_name;
    unsigned char archive_digest[PS_SHA256_LEN];
    unsigned char tree_digest[PS_SHA256_LEN];
    int64_t installed_at;
    size_t prompt_count;
    ps_entry *prompts;
    size_t entry_count;
    ps_entry *entries;
    ps_installed_signer *signers;
    size_t signer_count;
    char *manifest_path;
    unsigned char manifest_sha256[PS_SHA256_LEN];
    ps_consent_record consent;
    size_t bundle_count;
} ps_installed;
typedef struct ps_installed_list {
    ps_installed *items;
    size_t count;
} ps_installed_list;
typedef struct ps_installed_check {
    ps_installed *receipt;
    ps_strings modified;
    ps_strings added;
    ps_strings missing;
    unsigned char tree_digest[PS_SHA256_LEN];
    int tree_computed;
    int signature_checked;
} ps_installed_check;
typedef struct ps_sign_options {
    const char *output;
    ps_pack_options pack;
    const char *identity;
    const char *public_key_path;
    const char *source_repo;
    const char *source_commit;
    int allow_dirty;
    int append;
    int force;
    int minisig;
    void (*temp_file_hook)(const char *path);
    int bundle;
    const char *tsa_url;
    const ps_fetch_options *fetch;
    int keyless;
    const char *identity_token;
    const char *signing_config;
    const char *trusted_root;

    int predicate_version;
    const char *predicate_out;
} ps_sign_options;
typedef struct ps_sign_result {
    char *archive_path;
    char *sig_path;
    char *minisig_path;
    int archive_written;
    ps_format format;
    char *id, *version;
    unsigned char tree_digest[PS_SHA256_LEN];
    unsigned char archive_digest[PS_SHA256_LEN];
    int has_source;
    char *source_repository;
    char *source_commit;
    char *source_path;
    int source_dirty;
    char *source_manifest_ref;
    size_t prompt_count;
    char *identity;
    char fingerprint[PS_FINGERPRINT_MAX];
    size_t signature_count;
    ps_diags diags;
    char **bundle_paths;
    size_t bundle_count;
} ps_sign_result;
typedef struct ps_key_output {
    const char *path;
    const void *data;
    size_t len;
    unsigned mode;
} ps_key_output;
typedef enum ps_kdf_level {
    PS_KDF_SENSITIVE = 0,
    PS_KDF_INTERACTIVE
} ps_kdf_level;
typedef struct ps_index_entry {
    ps_format format;
    char *id, *version;
    char *url;
    char *archive_url;
    unsigned char sha256[PS_SHA256_LEN];
    uint64_t size;
    unsigned char tree_digest[PS_SHA256_LEN];
    char **signers;
    size_t signer_count;
    int64_t published;
    char *yanked;
    char **bundles;
    char **bundle_urls;
    size_t bundle_count;
} ps_index_entry;
typedef struct ps_index {
    uint64_t version;
    char *publisher;
    int64_t issued, expires;
    char *base_url;
    ps_index_entry *entries;
    size_t entry_count;
    unsigned char payload_sha256[PS_SHA256_LEN];
    char fingerprint[PS_FINGERPRINT_MAX];
} ps_index;
typedef struct ps_index_verify_options {
    const ps_trust *trust;
    int64_t at;
    int allow_expired;
} ps_index_verify_options;
typedef struct ps_index_seen {
    uint64_t version;
    unsigned char payload_sha256[PS_SHA256_LEN];
    int64_t first_seen;
} ps_index_seen;
typedef struct ps_index_install_options {
    int allow_yanked;
    int require_state;
    int record_state;
} ps_index_install_options;

const char *ps_version(void);
int ps_abi_version(void);
void ps_error_clear(ps_error *err);
char *ps_error_format(const ps_error *err, char *buf, size_t size);
void ps_diags_free(ps_diags *diags);
char *ps_diag_format(const ps_diag *diag, char *buf, size_t size);
const char *ps_format_name(ps_format format);
int ps_format_parse(const char *name, ps_format *out);
int ps_digest_path(const char *path, const ps_pack_options *options, ps_digest **digest_out, ps_error *err);
void ps_digest_free(ps_digest *digest);
char *ps_sha256_string(const unsigned char digest[PS_SHA256_LEN], char out[PS_SHA256_STRING_LEN]);
void ps_pack_options_init(ps_pack_options *options);
void ps_validate_options_init(ps_validate_options *options);
void ps_extract_limits_init(ps_extract_limits *limits);
int ps_copies_new(uint64_t memory_max, const char *dir, ps_copies **out, ps_error *err);
void ps_copies_free(ps_copies *copies);
uint64_t ps_copies_memory_peak(const ps_copies *copies);
uint64_t ps_copies_file_count(const ps_copies *copies);
int ps_inspect(const char *path, const ps_pack_options *pack, const ps_validate_options *validate, ps_inspection **out, ps_error *err);
void ps_inspection_free(ps_inspection *inspection);
int ps_manifest_valid(const ps_diags *diags, int strict);
int ps_manifest_describe(const ps_manifest *manifest, ps_lang lang, char **text, ps_error *err);
int ps_manifest_permissions(const ps_manifest *manifest, char **text, ps_error *err);
int ps_trust_load_file(const char *path, ps_trust **out, ps_error *err);
int ps_trust_from_pubkey(const ps_pubkey *key, const char *name, ps_trust **out, ps_error *err);
void ps_trust_free(ps_trust *policy);
int ps_pubkey_load_file(const char *path, ps_pubkey **out, ps_error *err);
void ps_pubkey_free(ps_pubkey *key);
int ps_time_parse(const char *text, int64_t *out);
int ps_time_format(int64_t t, char out[PS_TIME_TEXT_LEN]);
void ps_verify_options_init(ps_verify_options *options);
int ps_verify(const char *path, const ps_verify_options *options, ps_verify_result **out, ps_error *err);
void ps_verify_result_free(ps_verify_result *result);
int ps_sigstore_root_load(const char *path, ps_sigstore_root **out, ps_error *err);
int ps_sigstore_root_public_good(ps_sigstore_root **out, ps_error *err);
void ps_sigstore_root_free(ps_sigstore_root *root);
void ps_sigstore_options_init(ps_sigstore_options *options);
int ps_sigstore_verify(const ps_sigstore_artifact *artifact, const char *bundle_path, const ps_sigstore_options *options, ps_sigstore_result **out, ps_error *err);
void ps_sigstore_result_free(ps_sigstore_result *result);
void ps_diff_options_init(ps_diff_options *options);
int ps_diff_side_open(const char *path, const ps_diff_options *options, ps_diff_side **out, ps_error *err);
int ps_diff_side_installed(const char *data_dir, ps_format format, const char *id, const char *version, const ps_trust *policy, ps_diff_side **out, ps_error *err);
int ps_diff_side_installed_path(const char *path, const ps_trust *policy, ps_diff_side **out, ps_error *err);
void ps_diff_side_free(ps_diff_side *side);
int ps_diff_compare(const ps_diff_side *old_side, const ps_diff_side *new_side, const ps_diff_options *options, ps_diff **out, ps_error *err);
int ps_diff_empty(const ps_diff *diff);
size_t ps_diff_consent_needed(const ps_diff *diff, unsigned classes);
unsigned ps_consent_class_by_name(const char *name);
const char *ps_consent_class_name(unsigned consent);
int ps_diff_to_json(const ps_diff *diff, char **json, ps_error *err);
void ps_diff_free(ps_diff *diff);
int ps_data_dir_default(char **out, ps_error *err);
void ps_install_options_init(ps_install_options *options);
int ps_install(const char *archive, const ps_install_options *options, ps_install_result **out, ps_error *err);
void ps_install_result_free(ps_install_result *result);
void ps_fetch_options_init(ps_fetch_options *options);
int ps_install_url(const char *url, const ps_install_options *options, const ps_fetch_options *fetch, ps_install_result **out, ps_error *err);
int ps_fetch(const char *url, const char *path, const ps_verify_options *verify, const ps_fetch_options *fetch, ps_verify_result **out, ps_error *err);
int ps_installed_list_load(const char *data_dir, ps_installed_list **out, ps_error *err);
void ps_installed_list_free(ps_installed_list *list);
int ps_uninstall(const char *data_dir, ps_format format, const char *id, const char *version, ps_installed_list **removed, ps_error *err);
void ps_index_verify_options_init(ps_index_verify_options *options);
int ps_index_verify(const void *bytes, size_t len, const char *label, const ps_index_verify_options *options, ps_index **out, ps_error *err);
void ps_index_free(ps_index *index);
int ps_index_resolve(const ps_index *index, const char *id, const char *spec, int allow_yanked, const ps_index_entry **out, ps_error *err);
const ps_index_entry *ps_index_newest(const ps_index *index, ps_format format, const char *id);
int ps_version_compare(const char *a, const char *b);
int ps_index_read(const char *file_or_url, const ps_fetch_options *fetch, unsigned char **bytes, size_t *len, ps_error *err);
int ps_index_state_load(const char *data_dir, const char *publisher, ps_index_seen *seen, int *found, ps_error *err);
int ps_index_state_check(const ps_index_seen *seen, const ps_index *index, ps_error *err);
int ps_index_state_record(const char *data_dir, const ps_index *index, int64_t now, int *recorded, ps_error *err);
void ps_index_install_options_init(ps_index_install_options *options);
int ps_install_indexed(const ps_index *index, const ps_index_entry *entry, const ps_index_install_options *index_options, const ps_install_options *options, const ps_fetch_options *fetch, ps_install_result **out, ps_error *err);
int ps_install_indexed_dir(const ps_index *index, const ps_index_entry *entry, const ps_index_install_options *index_options, const ps_install_options *options, const char *dir, ps_install_result **out, ps_error *err);
int ps_installed_verify(const char *path, const ps_trust *trust, int64_t at, ps_installed_check **out, ps_error *err);
void ps_installed_check_free(ps_installed_check *check);
typedef struct ps_atomic_file ps_atomic_file;
int ps_atomic_open(const char *path, unsigned mode, int flags, ps_atomic_file **out, ps_error *err);
int ps_atomic_fd(const ps_atomic_file *file);
int ps_atomic_commit(ps_atomic_file *file, ps_error *err);
void ps_atomic_abort(ps_atomic_file *file);
int ps_pack(const char *dir, int out_fd, const ps_pack_options *options, ps_digest **out, ps_error *err);
int ps_compression_from_name(const char *name, ps_compression *out);
typedef struct ps_secret ps_secret;
typedef struct ps_seckey ps_seckey;
void ps_secret_free(ps_secret *secret);
ps_secret *ps_secret_from(const void *data, size_t len);
const unsigned char *ps_secret_bytes(const ps_secret *secret);
size_t ps_secret_len(const ps_secret *secret);
int ps_secret_read_file(const char *path, size_t max, ps_secret **out, ps_error *err);
int ps_key_files_write(const ps_key_output *files, size_t count, int flags, ps_error *err);
int ps_seckey_generate(ps_seckey **out, ps_error *err);
void ps_seckey_free(ps_seckey *key);
int ps_seckey_public(const ps_seckey *key, ps_pubkey **out, ps_error *err);
const unsigned char *ps_seckey_key_id(const ps_seckey *key);
int ps_seckey_parse(const unsigned char *text, size_t len, const char *name, const ps_secret *passphrase, ps_seckey **out, ps_error *err);
int ps_seckey_format(const ps_seckey *key, const ps_secret *passphrase, ps_kdf_level level, ps_secret **out, ps_error *err);
int ps_pubkey_set_identity(ps_pubkey *key, const char *identity, ps_error *err);
int ps_pubkey_format_minisign(const ps_pubkey *key, char **out, ps_error *err);
int ps_pubkey_fingerprint(const ps_pubkey *key, char out[PS_FINGERPRINT_MAX]);
void ps_key_id_hex(const unsigned char id[8], char hex[17]);
int ps_identity_valid(const char *identity);
void ps_sign_options_init(ps_sign_options *options);
int ps_sign(const char *path, const ps_seckey *key, const ps_sign_options *options, ps_sign_result **out, ps_error *err);
void ps_sign_result_free(ps_sign_result *result);
"""
