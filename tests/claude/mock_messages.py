# A local mock of the Anthropic Messages API for tests/it/claude_code.rs: the first turn
# asks for one Bash tool call (argv[2], default `rm -rf victim`), any turn that carries a
# tool_result ends with "done". An argv[2] that is a JSON list of {"name", "input"} asks
# for those tool calls one per turn, in order, then ends with "done". A call may carry
# "subagent": a list of calls the subagent it starts asks for (a request whose first
# message holds the marker @@subagent@@ is that subagent's). Streams SSE like the real API; every request is appended
# to the log file (argv[1]); the bound port is printed on stdout.
import json, sys, http.server, threading
LOG = open(sys.argv[1], "a")
COMMAND = sys.argv[2] if len(sys.argv) > 2 else "rm -rf victim"
CALLS = json.loads(COMMAND) if COMMAND.startswith("[") else [{"name": "Bash", "input": {"command": COMMAND, "description": "delete"}}]
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a): pass
    def do_GET(self):
        body = b"{}"
        self.send_response(200); self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body))); self.end_headers(); self.wfile.write(body)
    def do_POST(self):
        n = int(self.headers.get("content-length", 0)); raw = self.rfile.read(n)
        LOG.write(json.dumps({"path": self.path, "body": raw.decode("utf-8", "replace")}) + "\n"); LOG.flush()
        if not self.path.startswith("/v1/messages") or "count_tokens" in self.path:
            body = json.dumps({"input_tokens": 10}).encode()
            self.send_response(200); self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body))); self.end_headers(); self.wfile.write(body); return
        req = json.loads(raw)
        msgs = req.get("messages", [])
        first = json.dumps(msgs[0].get("content", "")) if msgs else ""
        subagent = [c["subagent"] for c in CALLS if "subagent" in c]
        calls = subagent[0] if subagent and "@@subagent@@" in first else CALLS
        last = msgs[-1] if msgs else {}
        # The turn: one past the newest tool call answered (its id is toolu_N).
        answered = [b.get("tool_use_id", "") for m in msgs if isinstance(m.get("content"), list) for b in m["content"] if b.get("type") == "tool_result"]
        turn = max([int(i.split("_")[-1]) for i in answered if i.split("_")[-1].isdigit()] or [0])
        mid = "msg_1"
        call = calls[turn] if turn < len(calls) else None
        tool_id = "toolu_%d" % (turn + 1)
        if call is None or not req.get("tools"):
            blocks = [("text", {"type": "text", "text": ""}, {"type": "text_delta", "text": "done"})]
            stop = "end_turn"
        else:
            if calls is not CALLS:
                tool_id = "toolu_sub_%d" % (turn + 1)
            blocks = [("tool_use", {"type": "tool_use", "id": tool_id, "name": call["name"], "input": {}},
                       {"type": "input_json_delta", "partial_json": json.dumps(call["input"])})]
            stop = "tool_use"
        events = [("message_start", {"type": "message_start", "message": {"id": mid, "type": "message", "role": "assistant", "model": req.get("model", "m"), "content": [], "stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": 10, "output_tokens": 1}}})]
        for i, (_, start, delta) in enumerate(blocks):
            events += [("content_block_start", {"type": "content_block_start", "index": i, "content_block": start}),
                       ("content_block_delta", {"type": "content_block_delta", "index": i, "delta": delta}),
                       ("content_block_stop", {"type": "content_block_stop", "index": i})]
        events += [("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None}, "usage": {"output_tokens": 5}}),
                   ("message_stop", {"type": "message_stop"})]
        if not req.get("stream"):
            content = [{"type": "text", "text": "done"}] if stop == "end_turn" else [{"type": "tool_use", "id": tool_id, "name": call["name"], "input": call["input"]}]
            body = json.dumps({"id": mid, "type": "message", "role": "assistant", "model": "m", "content": content, "stop_reason": stop, "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 1}}).encode()
            self.send_response(200); self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body))); self.end_headers(); self.wfile.write(body); return
        out = "".join(f"event: {e}\ndata: {json.dumps(d)}\n\n" for e, d in events).encode()
        self.send_response(200); self.send_header("content-type", "text/event-stream")
        self.send_header("content-length", str(len(out))); self.end_headers(); self.wfile.write(out)
srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
print(srv.server_address[1], flush=True)
srv.serve_forever()
