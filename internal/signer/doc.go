// Package signer is the host-side signing endpoint of Airlock: the key store,
// the operations (Ethereum transactions, EIP-191 and EIP-712 messages, JWTs,
// HMAC, purpose-bound ed25519 signatures, git SSH signatures), the policy that
// decides, the approval queue where a human decides what policy says needs a
// human, per-day budgets, and the hash-chained audit log.
//
// Shape (after Clef and Vault transit): callers talk to a Signer; policy,
// approval and audit are decorators around that same interface, and the
// innermost Signer is the only code that touches private key material. Clock
// and randomness are injected.
//
// Trust boundary: everything that arrives from a sandbox (the JSON-RPC body,
// transaction fields, typed data, JWT claims, git objects) is untrusted and
// is decoded and validated here before policy sees it. The identity of a
// caller is the connection the bridge received it on (the sandbox name and its
// approved config), never a field in the request. The sandbox.hcl policy is
// untrusted input too, but it was approved by the host user in the plan; keys
// are referenced by name from the host user's encrypted store. Private key
// bytes are decrypted only in the bridge process, never leave this package,
// never appear in a result, an error, a log line or the audit log. Errors sent
// to the sandbox are deliberate messages (*Refusal); internal causes are
// logged on the host.
//
// Policy semantics (first matching `policy` for the key and operation
// decides; anything no policy names is refused):
//   - chain_ids bound eth_signTransaction's chainId and the EIP-712
//     domain's chainId (required: typed data without one is refused).
//   - to is the recipient allowlist for transactions (contract creation is
//     then refused) and the verifyingContract allowlist for typed data
//     (typed data naming no verifyingContract is then refused).
//   - max_value and daily_limit count the transaction's value in wei per
//     sandbox, policy, chain and UTC day; token blocks count, per token, the
//     amounts of the transfers, approvals and permits decoded from calldata
//     (go-ethereum accounts/abi) and typed data (decode_calls.go).
//   - max_fee caps gas limit × gasPrice (or maxFeePerGas) per transaction;
//     fees are shown in every prompt but not counted in daily_limit.
//     Under token blocks, undecodable calldata, typed data other than a
//     decoded permit, and undeclared tokens are beyond the limits. The
//     daily spend is reserved
//     before signing, released if signing fails, and replayed from the audit
//     log when the bridge restarts (after the whole chain and its head
//     record verified; a log that fails is not opened and nothing is signed).
//   - approval: "never" — within limits is allowed, beyond is refused;
//     "above_limit" — beyond max_value, max_fee, daily_limit or rate a
//     human decides;
//     "always" — a human decides every request (limits still refuse).
//   - airlock_sign signs "airlock-sign-v1\x00" || purpose || "\x00" || data;
//     airlock_hmac is plain HMAC-SHA256 of the data, so that it matches
//     what the issuing service computes: its purpose is a policy label,
//     not a domain separator. Whoever may MAC with a key for one purpose
//     can make every MAC the key makes, so a key's weakest policy is its
//     policy (config's plan warns when one file gives a key different
//     approval settings for hmac).
//
// What a person sees (approval.go, the bridge's prompt): only fields this
// package decoded, agent text escaped (Escape, which also escapes `"`) and
// cut to maxShown bytes with the full length kept. Every request gets an
// audit entry, including those refused before a decoder saw them
// (refuseEarly, with the body's digest) and those whose client hung up
// while a human was asked (ErrClientGone) — a sandbox's refusals one by one
// up to a rate (a burst of 100, then one per 10 s), past it counted into
// the next refusal line written (audit_refusals.go), so a flood of garbage
// calls cannot fill the host's disk or keep it syncing. With the key store locked,
// requests are refused before a human is asked.
//
// # Privilege (what a sandbox can make this host code do)
//
// The signer runs inside the bridge process:
//
//	uid, gid      the bridge's (root when the bridge runs as root; not
//	              dropped yet)
//	capabilities  the bridge's; none used
//	cgroup        the bridge's
//	syscalls for  reads of the key files in $AIRLOCK_HOME/keys (names from
//	the sandbox   sandbox.hcl's approved plan, never from a request),
//	              signing in memory, append + fdatasync to the audit log
//	              (refusals at most 100 at once, then one per 10 s);
//	              no network, no program run
package signer
