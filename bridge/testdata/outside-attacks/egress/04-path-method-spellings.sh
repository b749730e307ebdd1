#!/bin/bash
# Path and method matching the way servers read a request. The host holds
# "svc.test POST /repos/*/*/releases" and "svc.test DELETE /items/*"; from inside, the same endpoints
# are spelled the ways the README lists (dot segments, //, trailing /, ;params, .json, percent-encoding
# once and twice, \ and %5C, case, %2F, NUL/control characters) and method overrides (three headers,
# _method in the query, urlencoded and multipart forms, lower-case and listed values, lower-case
# methods, absolute-form request lines). Got through when any reaches the server without approval.
. "$(dirname "$0")/lib.sh"
host_settings 'approve = ["svc.test POST /repos/*/*/releases", "svc.test DELETE /items/*"]'
up
out=$(pyin "
import gzip
F='Content-Type: application/x-www-form-urlencoded\r\n'
cases = [
 ('POST','/repos/a/b/releases/',''), ('POST','//repos/a/b/releases',''), ('POST','/repos/a/b/./releases',''),
 ('POST','/repos/a/x/../b/releases',''), ('POST','/repos/a/x/%2e%2e/b/releases',''), ('POST','/repos/a/b/releases;x=1',''),
 ('POST','/repos;x/a/b/releases',''), ('POST','/repos/a/b/releases/;',''), ('POST','/repos/a/b/releases.json',''),
 ('POST','/repos/a/b/releases%2ejson',''), ('POST','/repos/a/b/%72eleases',''), ('POST','/repos/a/b/%2572eleases',''),
 ('POST','/repos\\\\a\\\\b\\\\releases',''), ('POST','/repos%5Ca%5Cb%5Creleases',''), ('POST','/REPOS/a/b/RELEASES',''),
 ('POST','/repos/a/b/releases%00',''), ('POST','/repos/a/b/releases%09',''), ('POST','/repos/a/b/releases%0a',''),
 ('POST','/repos/a/b/releases%2f',''), ('POST','/repos/a%2fb/c/releases',''), ('POST','/repos/a/b/releases/..;/releases',''),
 ('POST','https://svc.test:$SP/repos/a/b/releases',''), ('post','/repos/a/b/releases',''), ('Post','/repos/a/b/releases',''),
 ('PUT','/repos/a/b/releases','X-HTTP-Method-Override: POST\r\n'), ('GET','/repos/a/b/releases','X-HTTP-Method-Override: post\r\n'),
 ('GET','/repos/a/b/releases','X-HTTP-Method-Override: GET\r\nX-HTTP-Method-Override: POST\r\n'),
 ('GET','/repos/a/b/releases','X-HTTP-Method-Override: GET, POST\r\n'), ('GET','/repos/a/b/releases?_method=POST',''),
 ('GET','/repos/a/b/releases?x=1&_method=post',''), ('GET','/repos/a/b/releases?%5fmethod=POST',''),
 ('DELETE','/items/1/',''), ('DELETE','/items/1.xml',''), ('DELETE','/items/1;v',''), ('delete','/items/1',''),
 ('POST','/items/1','X-HTTP-Method-Override: DELETE\r\n'), ('GET','/items/1','X-HTTP-Method: DELETE\r\n'),
 ('GET','/items/1','X-Method-Override: DELETE\r\n'), ('POST','/items/1',F,b'_method=DELETE'),
 ('POST','/items/1','Content-Type: application/x-www-form-urlencoded; charset=utf-8\r\n',b'a=1&_method=delete'),
 ('POST','/items/1',F,b'%5Fmethod=DELETE'), ('POST','/items/1',F,b'_method=DE%4CETE'), ('POST','/items/1',F,b'_method=GET&_method=DELETE'),
 ('POST','/items/1','Content-Type: multipart/form-data; boundary=XX\r\n',b'--XX\r\nContent-Disposition: form-data; name=\"_method\"\r\n\r\nDELETE\r\n--XX--\r\n'),
 ('POST','/items/1','Content-Type: multipart/form-data; boundary=\"XX\"\r\n',b'--XX\r\nContent-Disposition: form-data; name=_method\r\n\r\nDELETE\r\n--XX--\r\n'),
]
for c in cases:
    m, p, h = c[0], c[1], c[2]
    body = c[3] if len(c) > 3 else b'x'
    raw = ('%s %s HTTP/1.1\r\nHost: svc.test:$SP\r\n%sContent-Length: %d\r\nConnection: close\r\n\r\n' % (m, p, h, len(body))).encode() + body
    r = tls('svc.test:$SP', 'svc.test', raw, t=1.5)
    print('%-8s %-7s %-44r %-34r %s' % ('REACHED' if b'ok ' in r.split(b'\r\n\r\n',1)[-1][:3] else 'no', m, p, h.strip()[:34], 'held (no answer)' if b'timed out' in r else status(r)))
" </dev/null 2>&1)
echo "$out"
n=$(reached .)
echo "reached the server unheld: $n"; [ "$n" -gt 0 ] && cut -c1-300 "$REC"
result "$n"
