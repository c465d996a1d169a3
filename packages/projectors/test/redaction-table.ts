/** Realistic log lines: what redaction must remove (`gone`) and what must survive (`stay`). */
export interface RedactionCase {
  readonly source: string
  readonly line: string
  readonly gone: ReadonlyArray<string>
  readonly stay: ReadonlyArray<string>
}

export const REDACTION_CASES: ReadonlyArray<RedactionCase> = [
  // ---- Java / Spring / Hikari ----------------------------------------------------------------
  {
    source: "java",
    line: "2026-01-01 10:00:00.123 ERROR 1 --- [nio-8080-exec-3] c.z.h.pool.HikariPool : HikariPool-1 - Connection is not available\njava.sql.SQLTransientConnectionException: HikariPool-1 - Connection is not available, request timed out after 30000ms.\n\tat com.zaxxer.hikari.pool.HikariPool.createTimeoutException(HikariPool.java:696)\n\tat com.zaxxer.hikari.pool.HikariPool.getConnection(HikariPool.java:197)",
    gone: ["HikariPool.java:696", "createTimeoutException", "getConnection(HikariPool"],
    stay: ["ERROR", "java.sql.SQLTransientConnectionException", "Connection is not available"]
  },
  {
    source: "java",
    line: "Failed to obtain JDBC Connection; nested exception is com.mysql.cj.jdbc.exceptions.CommunicationsException: Communications link failure to jdbc:mysql://orders:Sup3rS3cret!@db-01.prod.example.com:3306/orders",
    gone: ["Sup3rS3cret!", "db-01.prod.example.com"],
    stay: ["com.mysql.cj.jdbc.exceptions.CommunicationsException", "Communications link failure"]
  },
  {
    source: "java",
    line: "java.net.ConnectException: Connection refused (Connection refused) to 10.42.7.19:6379\n\tat java.base/sun.nio.ch.Net.pollConnect(Native Method)\n\tat io.lettuce.core.RedisClient.connect(RedisClient.java:211)",
    gone: ["10.42.7.19", "pollConnect", "RedisClient.java"],
    stay: ["java.net.ConnectException", "Connection refused"]
  },
  {
    source: "java",
    line: "org.springframework.dao.DataAccessResourceFailureException: Unable to acquire JDBC Connection; password=Tr0ub4dor&3 user=svc_orders",
    gone: ["Tr0ub4dor"],
    stay: [
      "org.springframework.dao.DataAccessResourceFailureException",
      "Unable to acquire JDBC Connection",
      "svc_orders"
    ]
  },
  {
    source: "java",
    line: "WARN  [main] o.h.e.j.s.SqlExceptionHelper - SQL Error: 1205, SQLState: 40001 Lock wait timeout exceeded; try restarting transaction",
    gone: [],
    stay: ["WARN", "o.h.e.j.s.SqlExceptionHelper", "Lock wait timeout exceeded"]
  },
  {
    source: "java",
    line: "java.lang.OutOfMemoryError: Java heap space\n\tat java.util.Arrays.copyOf(Arrays.java:3512)\n\tat java.lang.AbstractStringBuilder.ensureCapacityInternal(AbstractStringBuilder.java:227)",
    gone: ["Arrays.java", "ensureCapacityInternal"],
    stay: ["java.lang.OutOfMemoryError", "Java heap space"]
  },
  {
    source: "java",
    line: "Caused by: java.util.concurrent.TimeoutException: Timed out waiting for response from payment-gateway.payments.svc.cluster.local:8443",
    gone: ["payment-gateway.payments.svc.cluster.local"],
    stay: ["java.util.concurrent.TimeoutException", "Timed out waiting for response"]
  },
  {
    source: "java",
    line: "Using AWS credentials aws_access_key_id=AKIAIOSFODNN7EXAMPLE aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY for bucket backups",
    gone: ["AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"],
    stay: ["Using AWS credentials", "bucket backups"]
  },
  {
    source: "java",
    line: "STS session issued ASIAY34FZKBOKMUTVV7A expires in 3600s",
    gone: ["ASIAY34FZKBOKMUTVV7A"],
    stay: ["STS session issued", "expires in"]
  },
  {
    source: "java",
    line: "javax.net.ssl.SSLHandshakeException: PKIX path building failed for https://api.partner.io/v2/charge",
    gone: ["api.partner.io"],
    stay: ["javax.net.ssl.SSLHandshakeException", "PKIX path building failed"]
  },
  {
    source: "java",
    line: "Request headers: {Authorization=Bearer eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ1c2VyLTQyIn0.c2lnbmF0dXJlX2hlcmU, X-Request-Id=abc}",
    gone: ["eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9", "c2lnbmF0dXJlX2hlcmU"],
    stay: ["Request headers"]
  },
  {
    source: "java",
    line: "Kafka consumer group orders-consumer rebalanced, broker kafka-2.kafka-headless.data.svc:9092 unreachable",
    gone: ["kafka-2.kafka-headless.data.svc"],
    stay: ["Kafka consumer group", "orders-consumer", "rebalanced"]
  },
  // ---- Go --------------------------------------------------------------------------------------
  {
    source: "go",
    line: 'level=error ts=2026-01-01T10:00:00Z caller=server.go:87 msg="dial tcp 10.0.3.15:5432: connect: connection refused" service=inventory',
    gone: ["10.0.3.15"],
    stay: ["level=error", "connection refused", "service=inventory"]
  },
  {
    source: "go",
    line: "panic: runtime error: invalid memory address or nil pointer dereference\n[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x4a1b2c]\n\ngoroutine 42 [running]:\nmain.(*Handler).ServeHTTP(0xc000123456)\n\t/app/handler.go:55 +0x1d",
    gone: ["goroutine 42", "handler.go:55", "ServeHTTP"],
    stay: ["panic: runtime error", "nil pointer dereference"]
  },
  {
    source: "go",
    line: 'time="2026-01-01T10:00:00Z" level=warning msg="retrying request" url="https://user:hunter2@registry.internal/v2/" attempt=3',
    gone: ["hunter2", "user:hunter2"],
    stay: ["level=warning", "retrying request", "attempt=3"]
  },
  {
    source: "go",
    line: '{"level":"error","service":"checkout","msg":"redis: connection pool timeout","addr":"redis-master.cache.svc.cluster.local:6379","token":"s.9f8e7d6c5b4a"}',
    gone: ["redis-master.cache.svc.cluster.local", "s.9f8e7d6c5b4a"],
    stay: ['"level":"error"', '"service":"checkout"', "redis: connection pool timeout"]
  },
  {
    source: "go",
    line: "grpc: addrConn.createTransport failed to connect to {[2001:db8:85a3::8a2e:370:7334]:50051 <nil> 0 <nil>}. Err: connection error",
    gone: ["2001:db8:85a3::8a2e:370:7334"],
    stay: ["grpc: addrConn.createTransport failed to connect", "connection error"]
  },
  {
    source: "go",
    line: "context deadline exceeded while calling fe80::1ff:fe23:4567:890a%eth0 at 10:15:30",
    gone: ["fe80::1ff:fe23:4567:890a"],
    stay: ["context deadline exceeded", "10:15:30"]
  },
  {
    source: "go",
    line: 'level=info msg="loaded config" github_token=ghp_16C7e42F292c6912E7710c838347Ae178B4a region=eu-west-1',
    gone: ["ghp_16C7e42F292c6912E7710c838347Ae178B4a"],
    stay: ["level=info", "loaded config", "region=eu-west-1"]
  },
  {
    source: "go",
    line: "webhook notify failed: posting to slack with xoxb-2048-1234567890-AbCdEfGhIjKlMnOpQrStUvWx returned 403",
    gone: ["xoxb-2048-1234567890-AbCdEfGhIjKlMnOpQrStUvWx"],
    stay: ["webhook notify failed", "returned 403"]
  },
  {
    source: "go",
    line: "leader election lost: lease kube-system/scheduler held by node-a (pid 31337)",
    gone: ["31337"],
    stay: ["leader election lost", "kube-system/scheduler"]
  },
  {
    source: "go",
    line: 'error="x509: certificate signed by unknown authority" host=vault.secrets.example.org',
    gone: ["vault.secrets.example.org"],
    stay: ["x509: certificate signed by unknown authority"]
  },
  // ---- Node -----------------------------------------------------------------------------------
  {
    source: "node",
    line: "TypeError: Cannot read properties of undefined (reading 'orderId')\n    at OrderService.place (/app/src/orders/service.js:42:17)\n    at async Promise.all (index 0)\n    at async /app/src/routes.js:88:5",
    gone: ["/app/src/orders/service.js", "routes.js"],
    stay: ["TypeError", "Cannot read properties of undefined"]
  },
  {
    source: "node",
    line: "Error: connect ECONNREFUSED 127.0.0.1:5672\n    at TCPConnectWrap.afterConnect [as oncomplete] (node:net:1595:16)",
    gone: ["127.0.0.1", "afterConnect"],
    stay: ["Error: connect ECONNREFUSED"]
  },
  {
    source: "node",
    line: "UnhandledPromiseRejectionWarning: FetchError: request to https://api.stripe.com/v1/charges failed, reason: socket hang up (key sk_live_51HqLyjWDarjtT1zdp7dcXYZabc)",
    gone: ["sk_live_51HqLyjWDarjtT1zdp7dcXYZabc", "api.stripe.com"],
    stay: ["FetchError", "socket hang up"]
  },
  {
    source: "node",
    line: '{"level":50,"time":1767261600000,"pid":4242,"hostname":"api-7f9c6d8b4d-q8z2w","msg":"OpenAI call failed","apiKey":"sk-proj-AbCdEf0123456789GhIjKlMnOpQrStUv"}',
    gone: ["4242", "api-7f9c6d8b4d-q8z2w", "sk-proj-AbCdEf0123456789GhIjKlMnOpQrStUv"],
    stay: ["OpenAI call failed"]
  },
  {
    source: "node",
    line: "MongoServerSelectionError: connection <monitor> to 172.20.0.4:27017 closed; uri=mongodb://admin:changeme123@mongo-0.mongo.db.svc.cluster.local:27017/app",
    gone: ["172.20.0.4", "changeme123", "mongo-0.mongo.db.svc.cluster.local"],
    stay: ["MongoServerSelectionError", "closed"]
  },
  {
    source: "node",
    line: "Maps geocode error REQUEST_DENIED with key AIzaSyDdI0hCZtE6vySjMm-WEfRq3CPzqKqqsHI",
    gone: ["AIzaSyDdI0hCZtE6vySjMm-WEfRq3CPzqKqqsHI"],
    stay: ["Maps geocode error", "REQUEST_DENIED"]
  },
  {
    source: "node",
    line: "Set-Cookie: sid=s%3AhG8kL2mNpQ.rS4tUvWxYz; Path=/; HttpOnly sent to client",
    gone: ["hG8kL2mNpQ", "rS4tUvWxYz"],
    stay: ["Set-Cookie"]
  },
  {
    source: "node",
    line: "RangeError: Maximum call stack size exceeded at JSON.stringify (<anonymous>)",
    gone: [],
    stay: ["RangeError", "Maximum call stack size exceeded"]
  },
  {
    source: "node",
    line: 'axios POST https://hooks.example.com/notify headers {"Authorization":"Basic YWRtaW46cGFzc3dvcmQxMjM=","Content-Type":"application/json"}',
    gone: ["YWRtaW46cGFzc3dvcmQxMjM=", "hooks.example.com"],
    stay: ["axios POST", "Content-Type"]
  },
  {
    source: "node",
    line: "npm ERR! 401 Unauthorized - token npm_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789 is invalid",
    gone: ["npm_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"],
    stay: ["401 Unauthorized", "is invalid"]
  },
  // ---- nginx -----------------------------------------------------------------------------------
  {
    source: "nginx",
    line: '192.168.14.23 - - [01/Jan/2026:10:00:00 +0000] "GET /api/orders?customer=42&access_token=9a8b7c6d5e4f3a2b1c0d HTTP/1.1" 504 167 "-" "Mozilla/5.0"',
    gone: ["192.168.14.23", "9a8b7c6d5e4f3a2b1c0d"],
    stay: ["GET /api/orders", "504"]
  },
  {
    source: "nginx",
    line: '2026/01/01 10:00:00 [error] 31#31: *5512 upstream timed out (110: Connection timed out) while reading response header from upstream, client: 10.1.2.3, server: shop.example.com, request: "POST /checkout HTTP/1.1", upstream: "http://10.244.1.17:8080/checkout"',
    gone: ["10.1.2.3", "shop.example.com", "10.244.1.17"],
    stay: ["[error]", "upstream timed out", "Connection timed out", "POST /checkout"]
  },
  {
    source: "nginx",
    line: "2026/01/01 10:00:01 [crit] 27#27: *1 connect() to unix:/run/php/php-fpm.sock failed (2: No such file or directory) while connecting to upstream, client: 2001:db8::42",
    gone: ["2001:db8::42"],
    stay: ["[crit]", "No such file or directory", "while connecting to upstream"]
  },
  {
    source: "nginx",
    line: '10.0.0.8 - alice [01/Jan/2026:10:00:02 +0000] "GET /admin HTTP/2.0" 401 0 "-" "curl/8.4.0" "Authorization: Basic YWxpY2U6czNjcjN0"',
    gone: ["10.0.0.8", "YWxpY2U6czNjcjN0"],
    stay: ["GET /admin", "401"]
  },
  {
    source: "nginx",
    line: "2026/01/01 10:00:03 [warn] 12#12: *90 an upstream response is buffered to a temporary file /var/cache/nginx/proxy_temp/1/00/0000000001 while reading upstream",
    gone: [],
    stay: ["[warn]", "upstream response is buffered to a temporary file"]
  },
  {
    source: "nginx",
    line: '203.0.113.50 - - [01/Jan/2026:10:00:04 +0000] "GET /login?user=bob&password=letmein HTTP/1.1" 302 0',
    gone: ["203.0.113.50", "letmein"],
    stay: ["GET /login", "user=bob", "302"]
  },
  {
    source: "nginx",
    line: '2026/01/01 10:00:05 [error] 31#31: *7 no live upstreams while connecting to upstream, upstream: "http://payments_backend/charge", host: "pay.shop.example.net"',
    gone: ["pay.shop.example.net"],
    stay: ["no live upstreams", "payments_backend"]
  },
  {
    source: "nginx",
    line: "2026/01/01 10:00:06 [emerg] 1#1: bind() to 0.0.0.0:80 failed (98: Address already in use)",
    gone: ["0.0.0.0:80"],
    stay: ["[emerg]", "Address already in use"]
  },
  // ---- MySQL -----------------------------------------------------------------------------------
  {
    source: "mysql-slow",
    line: "# User@Host: app[app] @ app-7c9d5f8b6d-k2m4n [10.244.3.9]  Id: 88123\n# Query_time: 12.345678  Lock_time: 0.000123 Rows_sent: 1  Rows_examined: 4500000\nSET timestamp=1767261600;\nSELECT * FROM orders WHERE customer_email = 'alice@example.com' AND created_at > '2025-12-01' ORDER BY id DESC LIMIT 20;",
    gone: ["alice@example.com", "2025-12-01", "10.244.3.9", "app-7c9d5f8b6d-k2m4n"],
    stay: ["Query_time", "Rows_examined", "SELECT * FROM orders WHERE customer_email ="]
  },
  {
    source: "mysql-slow",
    line: "# Query_time: 3.1  Lock_time: 0.0 Rows_sent: 0  Rows_examined: 1200000\nUPDATE accounts SET balance = 1500.75 WHERE account_no = 'DE89370400440532013000';",
    gone: ["1500.75", "DE89370400440532013000"],
    stay: ["UPDATE accounts SET balance", "Query_time"]
  },
  {
    source: "mysql-slow",
    line: "# Query_time: 8.0 Lock_time: 7.9\nDELETE FROM sessions WHERE user_id = 99812 AND token = 'f3a9c2e1b7d4';",
    gone: ["99812", "f3a9c2e1b7d4"],
    stay: ["DELETE FROM sessions WHERE user_id =", "Query_time"]
  },
  {
    source: "mysql-slow",
    line: "INSERT INTO audit_log (user, action, ip) VALUES ('bob', 'login', '198.51.100.7');",
    gone: ["'bob'", "198.51.100.7"],
    stay: ["INSERT INTO audit_log"]
  },
  {
    source: "mysql",
    line: "2026-01-01T10:00:00.000000Z 123 [Warning] [MY-010055] [Server] IP address '10.9.8.7' could not be resolved: Name or service not known",
    gone: ["10.9.8.7"],
    stay: ["[Warning]", "could not be resolved"]
  },
  {
    source: "mysql",
    line: "2026-01-01T10:00:01.000000Z 45 [Note] [MY-010914] [Server] Aborted connection 45 to db: 'orders' user: 'app' host: 'app-5f6d7c8b9d-zx8vq' (Got timeout reading communication packets).",
    gone: ["app-5f6d7c8b9d-zx8vq"],
    stay: ["Aborted connection", "Got timeout reading communication packets"]
  },
  {
    source: "mysql",
    line: "ERROR 1045 (28000): Access denied for user 'root'@'10.0.0.15' (using password: YES)",
    gone: ["10.0.0.15"],
    stay: ["ERROR 1045", "Access denied for user"]
  },
  {
    source: "mysql",
    line: "InnoDB: page_cleaner: 1000ms intended loop took 4523ms. The settings might not be optimal. mysqld[2231]: flushed=200",
    gone: ["2231"],
    stay: ["page_cleaner", "The settings might not be optimal"]
  },
  {
    source: "mysql",
    line: "Deadlock found when trying to get lock; try restarting transaction: UPDATE inventory SET qty = qty - 1 WHERE sku = 'SKU-88812'",
    gone: ["SKU-88812"],
    stay: ["Deadlock found when trying to get lock", "UPDATE inventory SET qty"]
  },
  {
    source: "mysql",
    line: "CHANGE REPLICATION SOURCE TO SOURCE_HOST='db-primary.prod.example.com', SOURCE_PASSWORD='R3pl!caP@ss'",
    gone: ["R3pl!caP@ss", "db-primary.prod.example.com"],
    stay: ["CHANGE REPLICATION SOURCE TO"]
  },
  // ---- Kubernetes events ------------------------------------------------------------------------
  {
    source: "k8s",
    line: "Warning  BackOff  pod/checkout-7d9f8b6c5d-x2k4p  Back-off restarting failed container checkout in pod checkout-7d9f8b6c5d-x2k4p_shop",
    gone: ["checkout-7d9f8b6c5d-x2k4p", "7d9f8b6c5d"],
    stay: ["Warning", "BackOff", "Back-off restarting failed container", "checkout"]
  },
  {
    source: "k8s",
    line: "Normal  Scheduled  Successfully assigned shop/payment-6b8f9c7d5-q4w8z to ip-10-0-12-34.eu-west-1.compute.internal",
    gone: ["payment-6b8f9c7d5-q4w8z", "ip-10-0-12-34.eu-west-1.compute.internal"],
    stay: ["Successfully assigned", "Scheduled"]
  },
  {
    source: "k8s",
    line: "Warning  OOMKilling  Memory cgroup out of memory: Killed process 48213 (java) total-vm:8123456kB, pid=48213",
    gone: ["pid=48213"],
    stay: ["OOMKilling", "Memory cgroup out of memory", "(java)"]
  },
  {
    source: "k8s",
    line: 'Warning  FailedMount  MountVolume.SetUp failed for volume "db-secret" : secret "orders-db-credentials" not found',
    gone: [],
    stay: ["FailedMount", "MountVolume.SetUp failed for volume", "not found"]
  },
  {
    source: "k8s",
    line: 'Warning  Unhealthy  Readiness probe failed: Get "http://10.244.2.31:8080/ready": context deadline exceeded',
    gone: ["10.244.2.31"],
    stay: ["Unhealthy", "Readiness probe failed", "context deadline exceeded"]
  },
  {
    source: "k8s",
    line: 'Normal  Pulled  Container image "registry.example.com/shop/inventory:1.4.2" already present on machine',
    gone: ["registry.example.com"],
    stay: ["Pulled", "already present on machine", "inventory"]
  },
  {
    source: "k8s",
    line: "Warning  FailedScheduling  0/5 nodes are available: 3 Insufficient memory, 2 node(s) had untolerated taint",
    gone: [],
    stay: ["FailedScheduling", "Insufficient memory", "untolerated taint"]
  },
  {
    source: "k8s",
    line: "Normal  Killing  Stopping container fluentd in pod fluentd-x7k2m (DaemonSet logging/fluentd)",
    gone: ["fluentd-x7k2m"],
    stay: ["Killing", "Stopping container fluentd"]
  },
  {
    source: "k8s",
    line: "Warning  Evicted  The node was low on resource: ephemeral-storage. Container orders-api-58d7b9c6f4-lp2rt was using 2Gi",
    gone: ["orders-api-58d7b9c6f4-lp2rt"],
    stay: ["Evicted", "low on resource", "ephemeral-storage"]
  },
  {
    source: "k8s",
    line: 'kubelet[1187]: E0101 10:00:00.000000 1187 pod_workers.go:1298] "Error syncing pod, skipping" err="failed to \\"StartContainer\\" for \\"auth\\" with CrashLoopBackOff"',
    gone: ["kubelet[1187]"],
    stay: ["Error syncing pod, skipping", "CrashLoopBackOff"]
  },
  {
    source: "k8s",
    line: "Normal  SuccessfulCreate  Created pod: worker-batch-28391042-r8t2v",
    gone: ["worker-batch-28391042-r8t2v"],
    stay: ["SuccessfulCreate", "Created pod"]
  },
  // ---- Python ----------------------------------------------------------------------------------
  {
    source: "python",
    line: 'Traceback (most recent call last):\n  File "/app/worker/tasks.py", line 88, in process_order\n    resp = client.charge(order)\n  File "/usr/lib/python3.11/site-packages/requests/api.py", line 59, in request\n    raise ReadTimeout(e, request=request)\nrequests.exceptions.ReadTimeout: HTTPSConnectionPool(host=\'api.payments.example.com\', port=443): Read timed out.',
    gone: ["/app/worker/tasks.py", "client.charge", "api.payments.example.com"],
    stay: ["requests.exceptions.ReadTimeout", "Read timed out"]
  },
  {
    source: "python",
    line: "ERROR:root:Task failed\nTraceback (most recent call last):\n  File \"/app/main.py\", line 12, in <module>\n    main()\nKeyError: 'customer_id'",
    gone: ["/app/main.py", "main()"],
    stay: ["ERROR:root:Task failed", "KeyError"]
  },
  {
    source: "python",
    line: 'psycopg2.OperationalError: could not connect to server: Connection refused. Is the server running on host "pg-replica-2.db.internal" (10.12.0.44) and accepting TCP/IP connections on port 5432?',
    gone: ["pg-replica-2.db.internal", "10.12.0.44"],
    stay: ["psycopg2.OperationalError", "could not connect to server", "Connection refused"]
  },
  {
    source: "python",
    line: "sqlalchemy.exc.OperationalError: (pymysql.err.OperationalError) (2003, \"Can't connect to MySQL server on 'mysql.prod.example.com'\") [SQL: SELECT id, email FROM users WHERE id = %(id)s] [parameters: {'id': 91822}]",
    gone: ["mysql.prod.example.com", "91822"],
    stay: ["sqlalchemy.exc.OperationalError", "Can't connect to MySQL server"]
  },
  {
    source: "python",
    line: "celery.worker: Received task from redis://:pa55w0rd@redis.queue.svc:6379/0 [pid 7712]",
    gone: ["pa55w0rd", "7712"],
    stay: ["celery.worker", "Received task"]
  },
  {
    source: "python",
    line: "boto3 ClientError: An error occurred (ExpiredToken) with key_id=AKIAJ5K6L7M8N9P0Q1R2 secret_key=Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa987",
    gone: ["AKIAJ5K6L7M8N9P0Q1R2", "Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa987"],
    stay: ["ClientError", "ExpiredToken"]
  },
  {
    source: "python",
    line: "gunicorn[2291]: [CRITICAL] WORKER TIMEOUT (pid:2304)",
    gone: ["2291", "2304"],
    stay: ["[CRITICAL]", "WORKER TIMEOUT"]
  },
  {
    source: "python",
    line: "ValueError: invalid literal for int() with base 10: 'abc'",
    gone: [],
    stay: ["ValueError", "invalid literal for int()"]
  },
  {
    source: "python",
    line: "django.request: Internal Server Error: /api/users/ (client_secret='cs_9f8a7b6c5d4e3f2a1b0c' provided)",
    gone: ["cs_9f8a7b6c5d4e3f2a1b0c"],
    stay: ["django.request", "Internal Server Error"]
  },
  {
    source: "python",
    line: "loaded private key -----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n-----END OPENSSH PRIVATE KEY----- for deploy",
    gone: ["b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ"],
    stay: ["loaded private key", "for deploy"]
  },
  // ---- generic / mixed ---------------------------------------------------------------------------
  {
    source: "generic",
    line: "config dump: DB_PASSWORD=p@ssW0rd!, REDIS_URL=redis://default:Xy7pQ2@cache.example.com:6379, LOG_LEVEL=debug",
    gone: ["p@ssW0rd!", "Xy7pQ2", "cache.example.com"],
    stay: ["config dump", "LOG_LEVEL=debug"]
  },
  {
    source: "generic",
    line: 'private_key: "-----BEGIN RSA PRIVATE KEY-----\\nMIIEowIBAAKCAQEAv1zqk\\n-----END RSA PRIVATE KEY-----"',
    gone: ["MIIEowIBAAKCAQEAv1zqk"],
    stay: ["private_key"]
  },
  {
    source: "generic",
    line: "JWT validation failed for eyJhbGciOiJIUzI1NiJ9.eyJyb2xlIjoiYWRtaW4ifQ.dGhpcy1pcy1ub3QtYS1zaWc: signature mismatch",
    gone: ["eyJhbGciOiJIUzI1NiJ9.eyJyb2xlIjoiYWRtaW4ifQ.dGhpcy1pcy1ub3QtYS1zaWc"],
    stay: ["JWT validation failed", "signature mismatch"]
  },
  {
    source: "generic",
    line: "cron[991]: (root) CMD (/usr/local/bin/backup.sh --token 6f1ed002ab5595859014ebf0951522d9)",
    gone: ["991", "6f1ed002ab5595859014ebf0951522d9"],
    stay: ["CMD", "backup.sh"]
  },
  {
    source: "generic",
    line: "systemd[1]: orders.service: Main process exited, code=exited, status=1/FAILURE",
    gone: [],
    stay: ["orders.service: Main process exited", "status=1/FAILURE"]
  },
  {
    source: "generic",
    line: "sshd[24512]: Failed password for invalid user admin from 45.33.32.156 port 51122 ssh2",
    gone: ["24512", "45.33.32.156"],
    stay: ["Failed password for invalid user", "ssh2"]
  },
  {
    source: "generic",
    line: 'haproxy[305]: 10.3.3.3:41234 [01/Jan/2026:10:00:00.000] fe_https be_api/api-2 0/0/1/-1/5002 504 194 - - sH-- 1/1/0/0/0 0/0 "GET /v1/quote HTTP/1.1"',
    gone: ["305", "10.3.3.3"],
    stay: ["be_api/api-2", "504", "GET /v1/quote"]
  },
  {
    source: "generic",
    line: "notify: email sent to ops-oncall@example.com about incident INC-4412",
    gone: ["ops-oncall@example.com"],
    stay: ["email sent to", "INC-4412"]
  },
  {
    source: "generic",
    line: "vault: lease renewed, client_token: hvs.CAESIJ4x9Kf2mQpR7tYvWz3L8nB6cD1eF0gH",
    gone: ["hvs.CAESIJ4x9Kf2mQpR7tYvWz3L8nB6cD1eF0gH"],
    stay: ["vault: lease renewed"]
  },
  {
    source: "generic",
    line: "GitLab runner registered with glpat-xY9zA8bC7dE6fG5hI4jK",
    gone: ["glpat-xY9zA8bC7dE6fG5hI4jK"],
    stay: ["GitLab runner registered"]
  },
  {
    source: "generic",
    line: "payment declined for card ending 4242, stripe restricted key rk_live_51Abc0987654321XyZ used",
    gone: ["rk_live_51Abc0987654321XyZ"],
    stay: ["payment declined", "restricted key"]
  },
  {
    source: "generic",
    line: "github app auth with gho_16C7e42F292c6912E7710c838347Ae178B4a and github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz failed",
    gone: [
      "gho_16C7e42F292c6912E7710c838347Ae178B4a",
      "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz"
    ],
    stay: ["github app auth with", "failed"]
  },
  {
    source: "generic",
    line: "WARN rate limiter: service=gateway level=warn apikey=3f9a1c7e5b2d8f4a6c0e9b1d7f3a5c8e exceeded 1000 req/s",
    gone: ["3f9a1c7e5b2d8f4a6c0e9b1d7f3a5c8e"],
    stay: ["rate limiter", "service=gateway", "exceeded"]
  },
  {
    source: "generic",
    line: "cookie: session_id=8c1f2a7e9b; theme=dark; csrftoken=Qm9iYnlUYWJsZXM",
    gone: ["8c1f2a7e9b", "Qm9iYnlUYWJsZXM"],
    stay: ["cookie"]
  },
  {
    source: "generic",
    line: 'login attempt {\\"user\\":\\"eve\\",\\"passwd\\":\\"0penSesame\\"} rejected',
    gone: ["0penSesame"],
    stay: ["login attempt", "rejected"]
  },
  {
    source: "generic",
    line: "INFO  inventory  Reserved 3 items for order 55012 in warehouse eu-central",
    gone: [],
    stay: ["INFO", "inventory", "Reserved 3 items for order 55012 in warehouse eu-central"]
  },
  {
    source: "generic",
    line: "DEBUG payment  retry 2/5 after TimeoutError from upstream payment-gateway",
    gone: [],
    stay: ["DEBUG", "payment", "retry 2/5 after TimeoutError from upstream payment-gateway"]
  },
  // ---- review findings: misses -------------------------------------------------------------------
  {
    source: "python",
    line: "redis.exceptions.ConnectionError: Error connecting to redis://:redispass@cache:6379/0",
    gone: ["redispass", "cache:6379"],
    stay: ["redis.exceptions.ConnectionError", "Error connecting to redis://"]
  },
  {
    source: "go",
    line: "accepted connection from ::ffff:192.168.1.10 on [fe80::1%eth0]:8080, upstream [2001:db8::7]:443",
    gone: ["192.168.1.10", ".168.1.10", "fe80::1", "eth0", "2001:db8::7", ":8080", ":443"],
    stay: ["accepted connection from", "upstream"]
  },
  {
    source: "java",
    line: "HikariPool-1 - Exception during pool initialization: Communications link failure, host=db-primary-01 port=3306",
    gone: ["db-primary-01"],
    stay: ["HikariPool-1", "Exception during pool initialization", "port=3306"]
  },
  {
    source: "go",
    line: "dial tcp: lookup redis-cache.prod:6379: no such host; fallback rabbitmq:5672 refused",
    gone: ["redis-cache.prod", "rabbitmq:5672"],
    stay: ["dial tcp: lookup", "no such host", "refused"]
  },
  {
    source: "java",
    line: "java.sql.SQLTransientConnectionException: HikariPool-1 - Connection is not available; SOURCE_HOST='db-primary.prod.acme' and com.zaxxer.hikari.pool.HikariPool gave up",
    gone: ["db-primary.prod.acme"],
    stay: ["java.sql.SQLTransientConnectionException", "HikariPool-1", "com.zaxxer.hikari.pool.HikariPool"]
  },
  {
    source: "generic",
    line: "replica lag on db-primary.prod.acme is 12s",
    gone: ["db-primary.prod.acme"],
    stay: ["replica lag on", "is 12s"]
  },
  {
    source: "k8s",
    line: "Warning  NodeNotReady  node gke-prod-pool-1-abcd1234-xyz9 status is now: NodeNotReady",
    gone: ["gke-prod-pool-1-abcd1234-xyz9", "abcd1234"],
    stay: ["NodeNotReady", "status is now"]
  },
  {
    source: "k8s",
    line: "Evicting pods from ip-10-1-2-3 and ip-10-1-2-4.ec2.internal (drain)",
    gone: ["ip-10-1-2-3", "10-1-2-3", "ip-10-1-2-4.ec2.internal"],
    stay: ["Evicting pods from", "(drain)"]
  },
  {
    source: "go",
    line: '{"level":"warn","msg":"peer unreachable","server_name":"db-primary-01","remote_addr":"peer-7","db":"orders"}',
    gone: ["db-primary-01", "peer-7"],
    stay: ['"level":"warn"', "peer unreachable", '"db":"orders"']
  },
  {
    source: "generic",
    line: "connection to db-primary-01 refused, retry 3 from worker-3 in region eu-west-1",
    gone: ["db-primary-01", "worker-3"],
    stay: ["connection to", "refused, retry 3", "region eu-west-1"]
  },
  {
    source: "k8s",
    line: "Warning  BackOff  pod/mysql-0  Back-off restarting failed container mysql in pod mysql-0",
    gone: ["mysql-0"],
    stay: ["BackOff", "Back-off restarting failed container mysql"]
  },
  {
    source: "k8s",
    line: 'level=error msg="readiness failed" pod=redis-master-2 namespace=cache kubernetes.pod_name=redis-master-2',
    gone: ["redis-master-2"],
    stay: ["readiness failed", "namespace=cache"]
  },
  {
    source: "k8s",
    line: "Normal  SuccessfulCreate  Created pod: batch-job-xkcdq; Pod batch-job-xkcdq container worker of pod batch-job-xkcdq OOMKilled",
    gone: ["batch-job-xkcdq", "xkcdq"],
    stay: ["SuccessfulCreate", "Created pod", "container worker of pod", "OOMKilled"]
  },
  {
    source: "k8s",
    line: 'Normal  SandboxChanged  Pod sandbox changed, it will be killed and re-created. {"pod_name": "orders-api-0"}',
    gone: ["orders-api-0"],
    stay: ["Pod sandbox changed, it will be killed and re-created."]
  },
  {
    source: "kernel",
    line: "Out of memory: Kill process 1234 (java) score 912 or sacrifice child\nKilled process 4411 (java) total-vm:8765098kB, anon-rss:4098760kB\noom-kill:constraint=CONSTRAINT_MEMCG,task=java,pid=1234,uid=1000",
    gone: ["1234", "4411"],
    stay: ["Out of memory: Kill process", "Killed process", "(java)", "oom-kill:constraint=CONSTRAINT_MEMCG"]
  },
  {
    source: "cli",
    line: "exec: /usr/bin/backup --password hunter2 --user backup; retry with --password=hunter3 --verbose",
    gone: ["hunter2", "hunter3"],
    stay: ["--password", "--user backup", "--verbose"]
  },
  {
    source: "cli",
    line: "running mysqldump -h db -u root -pS3cretPw orders > /backup/orders.sql",
    gone: ["S3cretPw"],
    stay: ["mysqldump", "-u root", "orders"]
  },
  {
    source: "cli",
    line: "+ sshpass -p 'Ss4hpw!x' ssh -p 2222 deploy@bastion && docker login -u ci-bot -p Dk4rPw9 registry && docker run -p 8080:80 web",
    gone: ["Ss4hpw!x", "Dk4rPw9"],
    stay: ["ssh -p 2222", "docker login -u ci-bot -p", "docker run -p 8080:80 web"]
  },
  {
    source: "cli",
    line: 'redis-cli -h cache -a "R3d1sPw" ping; redis-cli -h cache -p 6380 ping; mkdir -p /var/lib/redis',
    gone: ["R3d1sPw"],
    stay: ["redis-cli -h cache -a", "-p 6380 ping", "mkdir -p"]
  },
  {
    source: "cli",
    line: "curl -fsS -u admin:'Cu4lPw' https://api/x; curl --user svc:Cu5lPw -X POST https://api/y; curl -u admin https://api/z",
    gone: ["Cu4lPw", "Cu5lPw"],
    stay: ["-u admin:", "--user svc:", "curl -u admin https"]
  },
  {
    source: "cli",
    line: "sqlcmd -S sql01 -U sa -P Sq1Pw -Q x | ldapsearch -x -w 'Ld4pPw' -b dc=x | mongosh -u app -p M0ngoPw --port 27018",
    gone: ["Sq1Pw", "Ld4pPw", "M0ngoPw"],
    stay: ["sqlcmd -S sql01 -U sa -P", "ldapsearch -x -w", "--port 27018"]
  },
  {
    source: "cli",
    line: "smbclient //fs/share -U backup%Smb4Pw -c ls; sqlplus system/Orc1Pw@//db:1521/ORCL; expdp userid=scott/T1ger dumpfile=x.dmp; sqlplus -s /nolog",
    gone: ["Smb4Pw", "Orc1Pw", "T1ger"],
    stay: ["-U backup%", "sqlplus system/", "sqlplus -s /nolog"]
  },
  {
    source: "cli",
    line: "zip -P Z1pPw backup.zip db.sql; 7z a -p7zPw s.7z s/; htpasswd -b /etc/nginx/.htpasswd admin Ht4Pw; echo 'St1nPw' | docker login --password-stdin -u ci reg",
    gone: ["Z1pPw", "7zPw", "Ht4Pw", "St1nPw"],
    stay: ["backup.zip", "htpasswd -b /etc/nginx/.htpasswd admin", "--password-stdin -u ci"]
  },
  {
    source: "cli",
    line: "rabbitmqctl add_user orders Rb1tPw; net user svc Nt1Pw /add; net user guest /delete; useradd -m -p 'Us3rPw' app; echo 'app:Ch1Pw' | chpasswd; echo Ps1Pw | passwd --stdin app",
    gone: ["Rb1tPw", "Nt1Pw", "Us3rPw", "Ch1Pw", "Ps1Pw"],
    stay: ["rabbitmqctl add_user orders", "net user guest /delete", "passwd --stdin app"]
  },
  {
    source: "mysql",
    line: "Query\tCREATE USER 'svc'@'%' IDENTIFIED WITH caching_sha2_password BY 'My1Pw'; SET PASSWORD FOR 'r'@'%' = PASSWORD('My2Pw'); SET PASSWORD = 'My3Pw'",
    gone: ["My1Pw", "My2Pw", "My3Pw"],
    stay: ["CREATE USER", "IDENTIFIED WITH caching_sha2_password BY", "SET PASSWORD FOR"]
  },
  {
    source: "postgres",
    line: "LOG:  statement: ALTER ROLE app WITH ENCRYPTED PASSWORD 'Pg1Pw'; CREATE LOGIN etl WITH PASSWORD = 'Ms1Pw'; ALTER USER scott IDENTIFIED BY Or1Pw ACCOUNT UNLOCK",
    gone: ["Pg1Pw", "Ms1Pw", "Or1Pw"],
    stay: ["ALTER ROLE app WITH ENCRYPTED PASSWORD", "ACCOUNT UNLOCK"]
  },
  {
    source: "mysql",
    line: "Query\tCREATE USER IF NOT EXISTS 'svc_orders'@'10.2.%' REQUIRE SSL; GRANT SELECT ON shop.* TO 'svc_ro'@'%'; DROP USER 'old_app'@'localhost'; MERGE INTO c USING s ON (c.id = s.id) WHEN MATCHED THEN UPDATE SET c.email = 'ann@example.org'",
    gone: ["svc_orders", "10.2.%", "svc_ro", "old_app", "ann@example.org"],
    stay: ["CREATE USER IF NOT EXISTS", "GRANT SELECT ON shop.* TO", "MERGE INTO c USING s"]
  },
  {
    source: "generic",
    line: "create user failed after 3 retries; merge into main after review of 4 pull requests; grant access to on-call for 2 hours",
    gone: [],
    stay: ["after 3 retries", "review of 4 pull requests", "for 2 hours"]
  },
  {
    source: "generic",
    line: 'refreshing with token "aB3dE5gH7jK9mN1pQ2" for tenant; loaded secret \'Zx8Cv7Bn6Mq5Wl4Kj3\' from vault; secret "db-credentials" not found',
    gone: ["aB3dE5gH7jK9mN1pQ2", "Zx8Cv7Bn6Mq5Wl4Kj3"],
    stay: ['secret "db-credentials" not found', "for tenant", "from vault"]
  },
  {
    source: "generic",
    line: "mount \\\\fs01\\share failed; mount error(13): //nas-02/archive: Permission denied; scp a.tgz deploy@jump3:/opt/; git fetch git@web-5:infra.git; pulled nginx@sha256:2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824; copy C:\\Windows\\System32 ok; ratio 1//2",
    gone: ["fs01", "nas-02", "jump3", "web-5"],
    stay: [
      "nginx@sha256:2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824",
      "C:\\Windows\\System32",
      "ratio 1//2",
      "Permission denied"
    ]
  },
  {
    source: "redis",
    line: '1700000000.123456 [0 10.0.0.5:51234] "AUTH" "app" "Rd1Pw"\n127.0.0.1:6379> AUTH Rd2Pw\nrequirepass Rd3Pw\nCONFIG SET masterauth Rd4Pw\n-ERR AUTH failed: WRONGPASS invalid username-password pair\nWarning: requirepass is not set',
    gone: ["Rd1Pw", "Rd2Pw", "Rd3Pw", "Rd4Pw"],
    stay: ['"AUTH" "app"', "AUTH failed: WRONGPASS", "requirepass is not set", "CONFIG SET masterauth"]
  },
  {
    source: "cli",
    line: "JAVA_OPTS=-Dspring.datasource.password=Spr1ngPw -Dspring.datasource.hikari.connection-timeout=30000 curl --api-key abcKEY123",
    gone: ["Spr1ngPw", "abcKEY123"],
    stay: ["spring.datasource.hikari.connection-timeout=30000", "curl --api-key"]
  },
  {
    source: "generic",
    line: "Password hunter2 rejected for admin; the password was Winter2024! (policy: min 12 chars)",
    gone: ["hunter2", "Winter2024!"],
    stay: ["rejected for admin", "the password was", "policy: min 12 chars"]
  },
  {
    source: "generic",
    line: "password reset link sent; wrong password 3 times; token: abc",
    gone: ["abc"],
    stay: ["password reset link sent", "wrong password 3 times", "token: "]
  },
  {
    source: "azure",
    line: "Storage init failed: DefaultEndpointsProtocol=https;AccountName=acmelogs;AccountKey=Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA+/==;EndpointSuffix=core.windows.net",
    gone: ["Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA+/=="],
    stay: ["Storage init failed", "DefaultEndpointsProtocol=https", "AccountName=acmelogs"]
  },
  {
    source: "azure",
    line: "SAS rejected: BlobEndpoint=https://acme.blob.core.windows.net/;SharedAccessSignature=sv=2022-11-02&ss=b&srt=sco&sp=rl&se=2026-01-01&sig=aBcD%2BeFgH%3D",
    gone: ["aBcD%2BeFgH%3D", "srt=sco", "acme.blob.core.windows.net"],
    stay: ["SAS rejected", "SharedAccessSignature="]
  },
  {
    source: "node",
    line: "sendgrid: 401 for key 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; twilio key SK2b5f8a9c0d1e2f3a4b5c6d7e8f9a0b1c",
    gone: [
      "SG.ngeVfQFYQlKU0ufo8x5d1A",
      "TwL2iGABf9DHoTf-09kqeF8tAmbihYzrnopKc-1s5cr",
      "SK2b5f8a9c0d1e2f3a4b5c6d7e8f9a0b1c"
    ],
    stay: ["sendgrid: 401 for key", "twilio key"]
  },
  {
    source: "node",
    line: "alert post failed: https://hooks.slack.com/services/T0123ABCD/B0456EFGH/xYzAbCdEfGhIjKlMnOpQrStU returned 404",
    gone: ["T0123ABCD", "B0456EFGH", "xYzAbCdEfGhIjKlMnOpQrStU"],
    stay: ["alert post failed", "returned 404"]
  },
  {
    source: "node",
    line: "publish failed with npm_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8 and glpat-Zx9Yw8Vu7Ts6Rq5Po4Nm",
    gone: ["npm_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8", "glpat-Zx9Yw8Vu7Ts6Rq5Po4Nm"],
    stay: ["publish failed with"]
  },
  {
    source: "go",
    line: "datadog agent: forwarder 403, dd_api_key=0f1e2d3c4b5a69788796a5b4c3d2e1f0 DD_APP_KEY: 9c8b7a6f5e4d3c2b1a0f9e8d7c6b5a4f3e2d1c0b",
    gone: ["0f1e2d3c4b5a69788796a5b4c3d2e1f0", "9c8b7a6f5e4d3c2b1a0f9e8d7c6b5a4f3e2d1c0b"],
    stay: ["datadog agent: forwarder 403"]
  },
  // ---- review findings: over-redaction ------------------------------------------------------------
  {
    source: "generic",
    line: "Log signature: `java.lang.OutOfMemoryError: Java heap space` seen 14 times",
    gone: [],
    stay: ["Log signature: `java.lang.OutOfMemoryError: Java heap space`", "seen 14 times"]
  },
  {
    source: "generic",
    line: "auth: failed for user admin; session: expired",
    gone: [],
    stay: ["auth: failed for user admin", "session: expired"]
  },
  {
    source: "generic",
    line: 'loaded credentials: {"user": "svc_backup", "secret": "Qm9vbXNoYWth"} from vault',
    gone: ["svc_backup", "Qm9vbXNoYWth"],
    stay: ['credentials: {"user": "', '", "secret": "', '"} from vault']
  },
  {
    source: "generic",
    line: "config reload: where retries = 3 and timeout = 30s; please select an option from the menu",
    gone: [],
    stay: ["where retries = 3 and timeout = 30s", "please select an option from the menu"]
  },
  {
    source: "python",
    line: "celery.worker: task failed: redis.exceptions.TimeoutError: Timeout reading from socket; kombu.connection retrying",
    gone: [],
    stay: [
      "celery.worker",
      "redis.exceptions.TimeoutError",
      "Timeout reading from socket",
      "kombu.connection"
    ]
  },
  {
    source: "go",
    line: "caller=server.go:87 image=inventory:1.4.2 retry-after:30 status:200 node v18.2.0 from upstream payment-gateway",
    gone: [],
    stay: [
      "server.go:87",
      "inventory:1.4.2",
      "retry-after:30",
      "status:200",
      "node v18.2.0",
      "payment-gateway"
    ]
  },
  {
    source: "mysql",
    line: "ERROR 1045 (28000): Access denied for user 'app'@'%' (using password: NO)",
    gone: [],
    stay: ["Access denied for user", "(using password: NO)"]
  },
  {
    source: "generic",
    line: "Failed password for invalid user admin; password policy v2 applied",
    gone: [],
    stay: ["Failed password for invalid user admin", "password policy v2 applied"]
  },
  {
    source: "yaml",
    line: "  password: !!binary UGFzc3dvcmQxMjM0NTY=\n  token: !!str Tk5Lm8Np1Qr4St7Uv0Wx\n  mode: !!str readonly",
    gone: ["UGFzc3dvcmQxMjM0NTY=", "Tk5Lm8Np1Qr4St7Uv0Wx"],
    stay: ["password: !!binary", "token: !!str", "mode: !!str readonly"]
  },
  {
    source: "i18n",
    line: "Verbindung fehlgeschlagen: Benutzer=app Passwort=Gh7Zu2Kl9Qw; Passwort vergessen? Kennwort ändern",
    gone: ["Gh7Zu2Kl9Qw"],
    stay: ["Verbindung fehlgeschlagen", "Benutzer=app", "Passwort vergessen?", "Kennwort ändern"]
  },
  {
    source: "i18n",
    line: "数据库连接失败 用户名: app 密码：Zh8Mi1Ma4Qx 请检查配置",
    gone: ["Zh8Mi1Ma4Qx"],
    stay: ["数据库连接失败", "用户名: app", "请检查配置"]
  },
  {
    source: "auth",
    line: "sent verification code 730155 to user 42; verification code sent to +49 *** (attempt 2 of 3)",
    gone: ["730155"],
    stay: ["verification code sent to", "attempt 2 of 3", "user 42"]
  },
  {
    source: "auth",
    line: 'gpg: using passphrase "tiger lily under the bridge"; password "****" shown; credentials rotated for checkout/payments',
    gone: ["tiger lily under the bridge"],
    stay: ['password "****"', "credentials rotated for checkout/payments"]
  },
  {
    source: "webhook",
    line: "X-Hub-Signature-256: sha256=9b1f6c3e2a8d7f4b5c0e1a9d8f7b6c5e4a3d2f1e0c9b8a7f6e5d4c3b2a1f0e9d; signature verification failed (sha256 mismatch)",
    gone: ["9b1f6c3e2a8d7f4b5c0e1a9d8f7b6c5e4a3d2f1e0c9b8a7f6e5d4c3b2a1f0e9d"],
    stay: ["X-Hub-Signature-256", "signature verification failed (sha256 mismatch)"]
  },
  {
    source: "code",
    line: 'new Client({ password: process.env.DB_PASS || \'Fb9Ck2Pw5Lm\', user: os.getenv("DB_USER", "app") })',
    gone: ["Fb9Ck2Pw5Lm"],
    stay: ["new Client", "DB_USER", '"app"']
  },
  {
    source: "code",
    line: 'requests.get(url, auth=(\'admin\', \'Rq2Au5Th8Zx\'), timeout=5); HTTPBasicAuth("svc", "Hb3As6Ic9Wy"); auth=("oauth2", "bearer")',
    gone: ["Rq2Au5Th8Zx", "Hb3As6Ic9Wy"],
    stay: ["'admin'", '"svc"', 'auth=("oauth2", "bearer")', "timeout=5"]
  },
  {
    source: "cli",
    line: "openssl enc -aes-256-cbc -k Oe3Nc6Kk9Vb -in a; openssl s_client -connect api -k; login PW=Zq1Xw2Ce3Vr db_pw: Dp4Wq7Er0Ty",
    gone: ["Oe3Nc6Kk9Vb", "Zq1Xw2Ce3Vr", "Dp4Wq7Er0Ty"],
    stay: ["openssl enc -aes-256-cbc -k", "-in a", "openssl s_client -connect api -k"]
  },
  {
    source: "orm",
    line: "Hibernate: select u.id from users u where u.username=? [binding parameter [1] as [VARCHAR] - [gwen.stacy]]; binding parameter (2:VARCHAR) <- [null]",
    gone: ["gwen.stacy"],
    stay: ["binding parameter", "as [VARCHAR]", ":VARCHAR) <- [null]"]
  },
  {
    source: "orm",
    line: "==> Parameters: Smith, John(String), null, 42(Integer), 2026-01-01 10:00:00.0(Timestamp)",
    gone: ["Smith", "John", "42", "2026-01-01"],
    stay: ["==> Parameters:", "(String), null, ", "(Integer)", "(Timestamp)"]
  },
  {
    source: "orm",
    line: "Setting SQL statement parameter value: column index 1, parameter value [may.parker], value class [java.lang.String]",
    gone: ["may.parker"],
    stay: ["column index 1", "value class [java.lang.String]"]
  },
  {
    source: "postgres",
    line: "LOG:  statement: DO $body$ BEGIN PERFORM notify('Ben Reilly'); END $body$; SELECT $q$Kaine$q$ AS clone; price $5 and $$ signs",
    gone: ["Ben Reilly", "Kaine"],
    stay: ["LOG:  statement: DO", "AS clone"]
  },
  {
    source: "tcpdump",
    line: "12:00:01.123 IP 192.168.7.20.34567 > 192.168.7.1.53: 12345+ A? (29)\nupgraded libfoo 1.2.3.4.5 > 1.2.3.4.4",
    gone: ["192.168.7.20", "192.168.7.1", "34567"],
    stay: ["12:00:01.123 IP", "12345+ A?", "libfoo 1.2.3.4.5 > 1.2.3.4.4"]
  },
  {
    source: "generic",
    line: "rotating token Xy8Qw3Rt6Lp; secret aB3dE5fG7h ok; token CamelCase2, secret Vault2024, token v2Beta3",
    gone: ["Xy8Qw3Rt6Lp", "aB3dE5fG7h"],
    stay: ["token CamelCase2", "secret Vault2024", "token v2Beta3"]
  },
  {
    source: "payments",
    line: "charge failed card=4111 1111 1111 1111 cvv=123 amex 378282246310005; event at 1733050000123, order 4000000000000001, date 2026-03-15",
    gone: ["4111 1111 1111 1111", "378282246310005", "cvv=123"],
    stay: ["charge failed", "1733050000123", "order 4000000000000001", "2026-03-15"]
  },
  {
    source: "yaml",
    line: "stringData:\n  password: |\n    Yb7Lk2Pw9Qz\n  api_token: >-\n    Tk4Bl8Ck2Nm\n    Fo6Ld0Ed\n  password_policy: >-\n    at least 12 characters\n  description: |\n    Runs the nightly job\n  port: 8080",
    gone: ["Yb7Lk2Pw9Qz", "Tk4Bl8Ck2Nm", "Fo6Ld0Ed"],
    stay: ["password: |", "at least 12 characters", "Runs the nightly job", "port: 8080"]
  },
  {
    source: "redis",
    line: "sentinel auth-pass prod-master Sn5Tl8Ap1Ss\nsentinel monitor prod-master 6379 2\nlogin?user=bob&amp;password&#61;Hm4En7Ty0Pw&amp;next=1",
    gone: ["Sn5Tl8Ap1Ss", "Hm4En7Ty0Pw"],
    stay: ["sentinel auth-pass prod-master", "sentinel monitor prod-master", "login?user=bob"]
  },
  {
    source: "java",
    line: "retry policy:\n  at least 3 retries left\n  at 13:00 the job runs again",
    gone: [],
    stay: ["at least 3 retries left", "the job runs again"]
  },
  {
    source: "config",
    line: "pg-main:6432:billing:svc_billing:Bl3Ng6Sv9Pw\n::add-mask::Ms7Kq2Zp5Lx\ndb.password=Pa\\u0024\\u0024Wd4Qz8\nelapsed 10:15:30:45:60",
    gone: ["Bl3Ng6Sv9Pw", "Ms7Kq2Zp5Lx", "Wd4Qz8"],
    stay: ["::add-mask::", "billing:svc_billing:", "10:15:30:45:60"]
  },
  {
    source: "webhook",
    line: "POST https://hooks.zapier.com/hooks/catch/7654321/xyz9ab8/ 200; teams https://contoso.webhook.office.com/webhookb2/1111@2222/IncomingWebhook/fedcba9876543210fedcba9876543210/3333",
    gone: ["xyz9ab8", "fedcba9876543210fedcba9876543210"],
    stay: ["/hooks/catch/", "/webhookb2/", "200; teams"]
  },
  {
    source: "ssh",
    line: "PuTTY-User-Key-File-2: ssh-ed25519\nPublic-Lines: 1\nAAAAC3NzaC1lZDI1NTE5AAAAIPub\nPrivate-Lines: 1\nAAAAIPrivExampleKeyMaterial0123456789abcdefXYZ\nPrivate-MAC: 0123",
    gone: ["AAAAIPrivExampleKeyMaterial0123456789abcdefXYZ"],
    stay: ["PuTTY-User-Key-File-2: ssh-ed25519", "Private-Lines: 1", "Private-MAC:"]
  },
  {
    source: "generic",
    line: "vault: token renewed, ttl=768h; secretsmanager:GetSecretValue denied; secret_name: db-creds password_file=/run/secrets/db token_type: bearer; SELECT count(*) FROM orders took 2.3s",
    gone: [],
    stay: [
      "token renewed",
      "secretsmanager:GetSecretValue",
      "secret_name: db-creds",
      "password_file=/run/secrets/db",
      "token_type: bearer",
      "took 2.3s"
    ]
  },
  {
    source: "cli",
    line: 'netlify env:set DB_PASSWORD <<< \'Nt3Ly6Hs9Qa\'; aws ssm put-parameter --name /prod/db/password --value Ss7Mp0Pa3Rm; gh secret set NPM_TOKEN --body Gh8Bd1Yt4Kn; dotnet user-secrets set "Smtp:Password" "Us4Er7Sc0Rt"; security add-generic-password -s x -w Mc9Kc2Hn5Pw; aws ssm put-parameter --name /prod/log-level --value debug; git config set user.name Bob',
    gone: ["Nt3Ly6Hs9Qa", "Ss7Mp0Pa3Rm", "Gh8Bd1Yt4Kn", "Us4Er7Sc0Rt", "Mc9Kc2Hn5Pw"],
    stay: ["--value debug", "user.name Bob", "netlify env:set DB_PASSWORD <<<"]
  },
  {
    source: "dumps",
    line: 'array(1) { ["password"]=> string(10) "Vd1Mp4Ph7Q" } user[password]=Rp2Ms5Br8X&user[email]=x <add key="ApiToken">Xk3Ey6At9Tq</add> <entry key="timeout">30</entry> items[1]=x',
    gone: ["Vd1Mp4Ph7Q", "Rp2Ms5Br8X", "Xk3Ey6At9Tq"],
    stay: ['["password"]=> string(10)', "user[email]=x", '<entry key="timeout">30</entry>', "items[1]=x"]
  },
  {
    source: "protocols",
    line: "ACL SETUSER alice on >Ac3Ls6Tu9Pw #abcd ~cached:* +get\nUSER deploy\nPASS Fp4Ss7Wd0Tx\na001 LOGIN bob Im8Ap1Lg4In\nC: AUTH LOGIN\nS: 334 UGFzc3dvcmQ6\nC: U210cFBhc3MxMjM=\naddauth digest super:Zk9Dg2St5Sp\nsnmp-server community Sc6Om9Mu2Ny RO\nPASS rate 98% in CI",
    gone: ["Ac3Ls6Tu9Pw", "Fp4Ss7Wd0Tx", "Im8Ap1Lg4In", "U210cFBhc3MxMjM=", "Zk9Dg2St5Sp", "Sc6Om9Mu2Ny"],
    stay: ["ACL SETUSER alice on >", "#abcd", "C: AUTH LOGIN", "snmp-server community", "PASS rate 98% in CI"]
  },
  {
    source: "cli",
    line: 'snmpget -v 2c -c Sg2Cm5Mn8Ty router1 sysUpTime.0; ipmitool -H bmc -U root -P Ip6Mt9Pw2Rt chassis status; wpa_passphrase home Wp3Aps6Ph9Rs; psk="Wf4Ip7Sk0Ey"',
    gone: ["Sg2Cm5Mn8Ty", "Ip6Mt9Pw2Rt", "Wp3Aps6Ph9Rs", "Wf4Ip7Sk0Ey"],
    stay: ["sysUpTime.0", "chassis status", "wpa_passphrase home"]
  },
  {
    source: "windows",
    line: "$pw = ConvertTo-SecureString -String 'Pw2Sh5Cv8Ss' -AsPlainText -Force; net use Z: \\\\nas\\backup /user:CORP\\svc Nt3Us6Ep9Ws /persistent:no; PsExec.exe \\\\srv -u admin -p Ps4Xe7Cp0Ad ipconfig; ConvertTo-SecureString $enc -Key $k",
    gone: ["Pw2Sh5Cv8Ss", "Nt3Us6Ep9Ws", "Ps4Xe7Cp0Ad"],
    stay: ["-AsPlainText -Force", "/persistent:no", "ipconfig", "ConvertTo-SecureString $enc -Key $k"]
  },
  {
    source: "cli",
    line: "cqlsh cass1 9042 -u app -p Cl5Qs8Hp1Aw; mosquitto_sub -h mqtt -u s -P Ms6Qs9Ub2Pw -t x; db2 CONNECT TO PROD USER app USING Db7Cn0Us3Ng; db2 describe table x using index; mc alias set b https://s3 AKIAEXAMPLE Mc8Al1As4Sx; SecretID: 5a7c9e1b-3d2f-4a6b-8c0d-1e2f3a4b5c6d AccessorID: 0c1d2e3f-4a5b-6c7d-8e9f-a0b1c2d3e4f5",
    gone: [
      "Cl5Qs8Hp1Aw",
      "Ms6Qs9Ub2Pw",
      "Db7Cn0Us3Ng",
      "Mc8Al1As4Sx",
      "5a7c9e1b-3d2f-4a6b-8c0d-1e2f3a4b5c6d"
    ],
    stay: ["describe table x using index", "AccessorID: 0c1d2e3f-4a5b-6c7d-8e9f-a0b1c2d3e4f5"]
  },
  {
    source: "cli",
    line: "rabbitmqadmin -H mq -u admin -p Rm2Qa5Dm8Pw list queues; vsql -U dbadmin -w Vs5Ql8Wp1Dx; xfreerdp /v:w /u:admin /p:Xf6Re9Rd2Pw; lftp -u deploy,Lf7Tp0Pw3Cm sftp://f; ssh-keygen -p -f k -P Ol1dPw2 -N Ne3wPw4\nssh -p 2222 -l admin b; docker run -u 1000 -p 8080:80 nginx; psql -U app -p 5432 -h db; mysql -u root -p -h db shop; nc -u -p 5000 host",
    gone: ["Rm2Qa5Dm8Pw", "Vs5Ql8Wp1Dx", "Xf6Re9Rd2Pw", "Lf7Tp0Pw3Cm", "Ol1dPw2", "Ne3wPw4"],
    stay: ["ssh -p 2222", "-p 8080:80", "-p 5432", "mysql -u root -p -h db", "nc -u -p 5000"]
  },
  {
    source: "keys",
    line: "signing key: Sg1Kq4Yx; 2FA backup codes: 8815-2261 0931-7714\nseed phrase: zoo wrong vessel tongue spend smart\nBitLocker recovery key 482193-117502-660341-903817-225804-731650\nwallet private key 0x8da4ef21b864d2cc526dbdb2a120bd2874c36c9d0a1fb7f8c63d7f7a8b41de8f\nlicense key expired on 2026-01-01; seed phrase backup reminder sent; status code 200-299",
    gone: [
      "Sg1Kq4Yx",
      "8815-2261",
      "0931-7714",
      "zoo wrong vessel",
      "482193-117502",
      "8da4ef21b864d2cc526dbdb2a120bd28"
    ],
    stay: [
      "signing key:",
      "license key expired on 2026-01-01",
      "seed phrase backup reminder sent",
      "status code 200-299"
    ]
  }
]
