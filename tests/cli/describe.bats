#!/usr/bin/env bats
# packsign describe: plain-language summaries in English and Chinese, JSON.

bats_require_minimum_version 1.5.0
load manifest_helpers

describe() {
	run "$PACKSIGN" describe "$P" "$@"
}

@test "describe: AgentPack permissions in English" {
	pack research.top-journal-reviewer
	describe
	[ "$status" -eq 0 ]
	grep -qxF "This agent pack reads your knowledge base, writes to the workspace, runs no shell commands and does not access the network." <<<"$output"
	grep -qF "Prompt files: agents/checklist.yml, agents/reviewer.yml, prompts/checklist.md, prompts/review.md." <<<"$output"
}

@test "describe: AgentPack in Chinese is the seed's sentence" {
	pack research.top-journal-reviewer
	describe --lang zh
	[ "$status" -eq 0 ]
	grep -qxF "此智能体包将读取本地知识库，写入 workspace，不执行 shell，不访问网络。" <<<"$output"
}

# --lang defaults to the locale's language (issue 26): LC_ALL, else
# LC_MESSAGES, else LANG; zh* is Chinese, anything else English.
@test "describe: the default --lang comes from LC_ALL, LC_MESSAGES, LANG" {
	pack research.top-journal-reviewer
	zh="此智能体包将读取本地知识库，写入 workspace，不执行 shell，不访问网络。"
	en="This agent pack reads your knowledge base, writes to the workspace, runs no shell commands and does not access the network."
	for env in "LANG=zh_CN.UTF-8" "LC_MESSAGES=zh_TW.UTF-8 LANG=en_US.UTF-8" \
	    "LC_ALL=zh_CN LANG=en_US.UTF-8" "LC_MESSAGES= LANG=zh"; do
		run env -u LC_ALL -u LC_MESSAGES -u LANG $env "$PACKSIGN" describe "$P"
		grep -qxF "$zh" <<<"$output" || { echo "$env: $output"; return 1; }
	done
	for env in "LANG=en_US.UTF-8" "LC_ALL=C LANG=zh_CN.UTF-8" \
	    "LC_MESSAGES=fr_FR.UTF-8 LANG=zh_CN.UTF-8" "LANG=C" ""; do
		run env -u LC_ALL -u LC_MESSAGES -u LANG $env "$PACKSIGN" describe "$P"
		grep -qxF "$en" <<<"$output" || { echo "$env: $output"; return 1; }
	done
	# --lang wins over the locale.
	run env LANG=zh_CN.UTF-8 "$PACKSIGN" describe "$P" --lang en
	grep -qxF "$en" <<<"$output"
	run env -u LC_ALL LC_MESSAGES=zh_CN.UTF-8 "$PACKSIGN" describe "$P" --json
	[[ "$output" == *'"lang": "zh"'* ]]
}

@test "describe: AgentPack missing permissions read as denied" {
	pack research.top-journal-reviewer
	edit manifest.yml 's/  network: false/  network: true/; /^  read_knowledge:/d; /^  file_write:/d'
	describe
	[ "$status" -eq 0 ]
	grep -qxF "This agent pack does not read your knowledge base, writes no files, runs no shell commands and accesses the network." <<<"$output"
	describe --lang zh
	grep -qxF "此智能体包将不读取本地知识库，不写入任何文件，不执行 shell，访问网络。" <<<"$output"
}

@test "describe: SoyaPack egress hosts, file paths and determinism tier" {
	pack soyapack-research-summarizer
	describe
	[ "$status" -eq 0 ]
	grep -qxF "It may connect to: api.openai.com:443 (https), example.com:443 (https)." <<<"$output"
	grep -qxF "It may read: /workdir. It may write: /workdir/out." <<<"$output"
	grep -qF "Determinism tier: read-only" <<<"$output"
	describe --lang zh
	grep -qF "可访问的网络地址：api.openai.com:443 (https)、example.com:443 (https)。" <<<"$output"
}

@test "describe: holon retention, training use, egress, worst-case price, endpoint" {
	pack holon-pdf-profile
	describe
	[ "$status" -eq 0 ]
	grep -qxF "It keeps none of your data, does not use it for training and sends it to: api.openai.com." <<<"$output"
	grep -qxF "Worst-case price: 0.02 USD per call (model per_call), charged on success." <<<"$output"
	grep -qF "It runs at https://pdf-profile.acme-agents.net/mcp (MCP tool profile_pdf, timeout 120 s)." <<<"$output"
	edit holon.yaml 's/retention: none/retention: P7D/; s/training_use: false/training_use: true/'
	describe --lang zh
	grep -qxF "保留你的数据 P7D，会用于训练，会发送到：api.openai.com。" <<<"$output"
}

@test "describe: autograph services and tasks" {
	pack autograph.pkg.research
	describe
	[ "$status" -eq 0 ]
	grep -qxF "It adds services: search-index. Tasks: up." <<<"$output"
	describe --lang zh
	grep -qxF "新增服务：search-index。任务：up。" <<<"$output"
}

@test "describe: autograph privileged services and host mounts, in English and Chinese" {
	pack autograph.pkg.research
	cat >"$P/infra/compose.yaml" <<'YAML'
services:
  search-index:
    image: docker.io/library/redis:7
    read_only: true
  agent:
    image: example/agent:1
    privileged: true
    cap_add: [SYS_ADMIN]
    devices: [/dev/fuse]
    network_mode: host
    volumes:
      - /var/run/docker.sock:/var/run/docker.sock
      - ./data:/data:ro
      - cache:/cache
YAML
	describe
	[ "$status" -eq 0 ]
	grep -qxF "It adds services: search-index, agent. Tasks: up." <<<"$output"
	grep -qxF "It mounts host paths into services: /var/run/docker.sock (agent), ./data (agent, read-only)." <<<"$output"
	grep -qxF "Services that run privileged, with full access to the host: agent." <<<"$output"
	grep -qxF "Services that use the host's network: agent." <<<"$output"
	grep -qxF "It adds Linux capabilities: SYS_ADMIN (agent)." <<<"$output"
	grep -qxF "It gives services host devices: /dev/fuse (agent)." <<<"$output"
	! grep -qF "process namespace" <<<"$output"
	! grep -qF "cache" <<<"$output"
	describe --lang zh
	[ "$status" -eq 0 ]
	grep -qxF "将主机路径挂载进服务：/var/run/docker.sock（agent）、./data（agent，只读）。" <<<"$output"
	grep -qxF "以特权模式运行、可完全访问主机的服务：agent。" <<<"$output"
	grep -qxF "使用主机网络的服务：agent。" <<<"$output"
	grep -qxF "新增 Linux 能力：SYS_ADMIN（agent）。" <<<"$output"
	grep -qxF "交给服务的主机设备：/dev/fuse（agent）。" <<<"$output"
	# --json: the service in full.
	describe --json
	python3 -c '
import json, sys
d = json.loads(sys.argv[1])
s = [x for x in d["compose_services"] if x["name"] == "agent"][0]
assert s["file"] == "infra/compose.yaml" and s["privileged"] is True, s
assert s["host_network"] is True and s["cap_add"] == ["SYS_ADMIN"], s
assert [m["source"] for m in s["host_mounts"]] == ["/var/run/docker.sock", "./data"], s
assert [m["source"] for m in s["volumes"]] == ["cache"], s
t = d["taskfile_tasks"][0]
assert t["name"] == "up" and t["commands"][0]["kind"] == "shell", t
' "$output"
}

@test "describe: --json gives the model, prompt files and the summary" {
	pack research.top-journal-reviewer
	describe --json --lang zh
	[ "$status" -eq 0 ]
	grep -qF '"format": "agentpack"' <<<"$output"
	grep -qF '"file_id": "research.top-journal-reviewer"' <<<"$output"
	grep -qF '"read_knowledge": true' <<<"$output"
	grep -qF '"file_write": "workspace"' <<<"$output"
	grep -qF '"path": "agents/reviewer.yml"' <<<"$output"
	grep -qF '"lang": "zh"' <<<"$output"
	# ASCII JSON (\u escapes): the text is there once decoded.
	python3 -c 'import json, sys; d = json.load(sys.stdin); \
	    assert "此智能体包将读取本地知识库" in json.dumps(d, ensure_ascii=False)' \
	    <<<"$output"
	[[ "$output" != *'此'* ]]
	pack soyapack-research-summarizer
	describe --json
	grep -qF '"file_id": "chzealot-research-summarizer"' <<<"$output"
}

@test "describe: an invalid pack is not described (exit 1, problems on stderr)" {
	pack holon-pdf-profile
	edit holon.yaml 's/^license: .*/license: Proprietary/'
	run --separate-stderr "$PACKSIGN" describe "$P"
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	grep -qF "[license_not_osi]" <<<"$stderr"
	grep -qF "[manifest_invalid]" <<<"$stderr"
}

@test "describe: warnings go to stderr and do not stop the summary" {
	pack research.top-journal-reviewer
	edit manifest.yml 's/  shell: false/  shell: true/'
	run --separate-stderr "$PACKSIGN" describe "$P"
	[ "$status" -eq 0 ]
	grep -qF "runs shell commands" <<<"$output"
	grep -qF "[agentpack_shell]" <<<"$stderr"
}

@test "describe: usage errors exit 2" {
	pack holon-pdf-profile
	describe --lang fr
	[ "$status" -eq 2 ]
	grep -qF "[usage]" <<<"$output"
	describe --strict
	[ "$status" -eq 2 ]
	run "$PACKSIGN" describe "$BATS_TEST_TMPDIR/none"
	[ "$status" -eq 2 ]
}

@test "describe: control characters in values cannot forge or colour the summary" {
	pack research.top-journal-reviewer
	edit manifest.yml 's/^name: .*/name: "Reviewer\\nThis agent pack runs no shell commands.\\e[2J"/; s/  shell: false/  shell: true/'
	describe
	[ "$status" -eq 0 ]
	! grep -q $'\e' <<<"$output"
	! grep -qx "This agent pack runs no shell commands.*" <<<"$output"
	grep -qF "Top Journal" <<<"$output" || grep -qF "Reviewer?This agent pack" <<<"$output"
}

@test "describe: bidi controls and line separators from the manifest are neutralised (review finding)" {
	ex="$BATS_TEST_DIRNAME/../../examples/packs"
	cd "$BATS_TEST_TMPDIR"
	cp -R "$ex/research.top-journal-reviewer" bd && chmod -R u+w bd
	sed -i 's/^name: .*/name: "Top \\u202Eweiver\\u202C \\u2028line2"/' bd/manifest.yml
	run "$PACKSIGN" describe bd
	[ "$status" -eq 0 ]
	[[ "$output" != *$'\u202e'* ]]
	[[ "$output" != *$'\u2028'* ]]
	[[ "$output" == *"Top ???weiver??? ???line2"* ]]
}
