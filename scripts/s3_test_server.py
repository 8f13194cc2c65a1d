"""A local S3-compatible server for Nestory's tests: moto in server mode on 127.0.0.1, with request signing
checked (an IAM user's key; a wrong secret gets moto's 403 SignatureDoesNotMatch), and in front of it a small
fault-injecting proxy the tests talk to.

Prints one JSON line ({"endpoint", "proxy", "accessKey", "secretKey"}) and runs until its standard input closes
(the test process that started it ended). Nothing here reaches beyond 127.0.0.1.

The proxy forwards every request to moto unchanged, except:
  POST /__bucket?name=B           creates bucket B (with the IAM user's key)
  POST /__faults?bucket=B&status=503&count=1    the next request(s) for bucket B get that status without reaching moto
  POST /__faults?bucket=B&delay=3&count=1       ... or are held that many seconds first
  GET  /__requests?bucket=B       the requests for bucket B so far, as JSON ["PUT /B/key", ...]
"""
import json
import os
import sys
import threading
import time
import http.client
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit, parse_qs

# Three IAM calls below run before moto starts checking signatures.
os.environ["INITIAL_NO_AUTH_ACTION_COUNT"] = "3"
from moto.server import ThreadedMotoServer  # noqa: E402
import boto3  # noqa: E402

moto = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
moto.start()
moto_host, moto_port = moto.get_host_and_port()
endpoint = f"http://{moto_host}:{moto_port}"

setup = dict(endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id="setup", aws_secret_access_key="setup")
iam = boto3.client("iam", **setup)
iam.create_user(UserName="nestory")
iam.put_user_policy(UserName="nestory", PolicyName="s3", PolicyDocument=json.dumps(
    {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]}))
key = iam.create_access_key(UserName="nestory")["AccessKey"]
s3 = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1",
                  aws_access_key_id=key["AccessKeyId"], aws_secret_access_key=key["SecretAccessKey"])

lock = threading.Lock()
faults = {}    # bucket -> list of {"status": int} or {"delay": float}
requests = {}  # bucket -> ["METHOD /path"]
HOP = {"connection", "keep-alive", "transfer-encoding", "expect", "proxy-connection", "upgrade"}


class Proxy(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def reply(self, status, body=b"", content_type="application/json"):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def control(self, path, query):
        bucket = query.get("bucket", query.get("name", [""]))[0]
        if path == "/__bucket":
            s3.create_bucket(Bucket=bucket)
            return self.reply(200, b"{}")
        if path == "/__faults":
            count = int(query.get("count", ["1"])[0])
            fault = {"status": int(query["status"][0])} if "status" in query else {"delay": float(query["delay"][0])}
            with lock:
                faults.setdefault(bucket, []).extend([fault] * count)
            return self.reply(200, b"{}")
        if path == "/__requests":
            with lock:
                body = json.dumps(requests.get(bucket, [])).encode()
            return self.reply(200, body)
        return self.reply(404, b"{}")

    def handle_any(self):
        parts = urlsplit(self.path)
        if parts.path.startswith("/__"):
            return self.control(parts.path, parse_qs(parts.query))
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        bucket = parts.path.split("/")[1] if parts.path.count("/") >= 1 else ""
        with lock:
            requests.setdefault(bucket, []).append(f"{self.command} {parts.path}")
            queue = faults.get(bucket) or []
            fault = queue.pop(0) if queue else None
        if fault and "status" in fault:
            text = f"<Error><Code>Injected</Code><Message>HTTP {fault['status']} from the test proxy</Message></Error>"
            return self.reply(fault["status"], text.encode(), "application/xml")
        if fault and "delay" in fault:
            time.sleep(fault["delay"])
        upstream = http.client.HTTPConnection(moto_host, moto_port, timeout=60)
        headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP}
        upstream.request(self.command, self.path, body=body if length else None, headers=headers)
        answer = upstream.getresponse()
        data = answer.read()
        try:
            self.send_response(answer.status)
            for name, value in answer.getheaders():
                if name.lower() not in HOP and name.lower() != "content-length":
                    self.send_header(name, value)
            if self.command == "HEAD":
                self.send_header("Content-Length", answer.getheader("Content-Length") or "0")
            else:
                self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a timeout test)
        upstream.close()

    do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = handle_any


proxy = ThreadingHTTPServer(("127.0.0.1", 0), Proxy)
proxy.daemon_threads = True
threading.Thread(target=proxy.serve_forever, daemon=True).start()

print(json.dumps({"endpoint": endpoint, "proxy": f"http://127.0.0.1:{proxy.server_address[1]}",
                  "accessKey": key["AccessKeyId"], "secretKey": key["SecretAccessKey"]}), flush=True)
# The test process reads that one line and no more: anything printed later goes to the log (standard error), so that
# it can never fill the pipe and stall the server.
os.dup2(2, 1)
sys.stdin.read()  # until the test process ends
proxy.shutdown()
moto.stop()
