#!/bin/bash
# Method override in a JSON body. The proxy reads _method in urlencoded and multipart forms, but
# Laravel reads the JSON body as the request's input bag (Request::getInputSource) and Symfony's
# getMethod() takes _method from it, so POST /items/1 {"_method":"DELETE"} is a DELETE there
# (method spoofing is on by default). The host holds "svc.test DELETE /items/*".
# Got through when the POST reaches the server unheld.
. "$(dirname "$0")/lib.sh"
host_settings 'approve = ["svc.test DELETE /items/*"]'
up
pyin "
for ct,b in [('application/json',b'{\"_method\":\"DELETE\"}'),('application/vnd.api+json',b'{\"_method\":\"DELETE\"}'),('application/json',b'{\"a\":1,\"_method\":\"delete\"}')]:
    r = tls('svc.test:$SP','svc.test',('POST /items/1 HTTP/1.1\r\nHost: svc.test:$SP\r\nContent-Type: %s\r\nContent-Length: %d\r\nConnection: close\r\n\r\n' % (ct,len(b))).encode()+b, t=2)
    print('%-26s %-28s %s' % (ct, b.decode(), 'held (no answer)' if b'timed out' in r else status(r)))
" </dev/null
n=$(reached '^/items/1'); echo "DELETE-by-JSON-override requests that reached the server unheld: $n"
result "$n"
