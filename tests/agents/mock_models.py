# A local mock of two model APIs for tests/it/agent_clients.rs: OpenAI's Responses API
# (POST .../responses, streamed as SSE: Codex CLI) and Google's Gemini API
# (POST .../models/M:streamGenerateContent or :generateContent: Gemini CLI).
# argv[1] is the request log (one JSON line per request, appended); argv[2] a JSON list of
# {"name", "input"} tool calls (`@PORT@` in them is the mock's port), asked for one per
# turn in order; once every call has its
# answer, a turn ends with the text "done". GET /script.sh serves `rm -rf victim` (what a
# download-and-run attack would run). The bound port is printed on stdout.
import json, sys, http.server

LOG = open(sys.argv[1], "a")
CALLS = []


def responses(req):
    """One Responses API turn as SSE events."""
    items = req.get("input") or []
    answered = sum(1 for i in items if isinstance(i, dict) and i.get("type") == "function_call_output")
    call = CALLS[answered] if answered < len(CALLS) and req.get("tools") else None
    rid = "resp_%d" % (answered + 1)
    if call is None:
        item = {"type": "message", "id": "msg_%d" % (answered + 1), "role": "assistant", "status": "completed",
                "content": [{"type": "output_text", "text": "done", "annotations": []}]}
    else:
        item = {"type": "function_call", "id": "fc_%d" % (answered + 1), "status": "completed",
                "call_id": "call_%d" % (answered + 1), "name": call["name"], "arguments": json.dumps(call["input"])}
    usage = {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 5,
             "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 15}
    events = [
        ("response.created", {"type": "response.created", "response": {"id": rid, "status": "in_progress", "output": []}}),
        ("response.output_item.added", {"type": "response.output_item.added", "output_index": 0, "item": item}),
        ("response.output_item.done", {"type": "response.output_item.done", "output_index": 0, "item": item}),
        ("response.completed", {"type": "response.completed",
                                "response": {"id": rid, "status": "completed", "output": [item], "usage": usage}}),
    ]
    return "".join(f"event: {e}\ndata: {json.dumps(d)}\n\n" for e, d in events).encode()


def gemini(req):
    """One Gemini turn: the candidate's JSON."""
    parts = [p for c in req.get("contents") or [] for p in c.get("parts") or []]
    answered = sum(1 for p in parts if "functionResponse" in p)
    call = CALLS[answered] if answered < len(CALLS) and req.get("tools") else None
    part = {"text": "done"} if call is None else {"functionCall": {"name": call["name"], "args": call["input"]}}
    return {"candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
            "modelVersion": "gemini-2.5-flash"}


class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def reply(self, status, kind, body):
        self.send_response(status)
        self.send_header("content-type", kind)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if self.path.startswith("/script.sh"):
            # What the download-and-run attack fetches: it deletes the victim folder.
            self.reply(200, "text/plain", b"rm -rf victim\n")
        else:
            self.reply(200, "application/json", b'{"data": [], "models": []}')

    def do_POST(self):
        raw = self.rfile.read(int(self.headers.get("content-length", 0)))
        LOG.write(json.dumps({"path": self.path, "body": raw.decode("utf-8", "replace")}) + "\n")
        LOG.flush()
        try:
            req = json.loads(raw or b"{}")
        except ValueError:
            req = {}
        path = self.path.split("?")[0]
        if path.endswith("/responses"):
            self.reply(200, "text/event-stream", responses(req))
        elif path.endswith(":countTokens"):
            self.reply(200, "application/json", b'{"totalTokens": 10}')
        elif path.endswith(":streamGenerateContent"):
            self.reply(200, "text/event-stream", ("data: %s\r\n\r\n" % json.dumps(gemini(req))).encode())
        elif path.endswith(":generateContent"):
            self.reply(200, "application/json", json.dumps(gemini(req)).encode())
        else:
            self.reply(404, "application/json", b'{"error": {"message": "not mocked"}}')


srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
# `@PORT@` in the calls is the mock's own port (where the attack downloads its script).
CALLS = json.loads(sys.argv[2].replace("@PORT@", str(srv.server_address[1])))
print(srv.server_address[1], flush=True)
srv.serve_forever()
