package protocol

// Signer methods (feature "signer"; bridge/signer.go). The signing endpoint
// itself is not on the bridge socket: it is a guest service inside each
// sandbox. These are the host user's side: pending approvals.
const (
	MethodApprovalsList   = "approvals.list"   // {} → ApprovalsListResult
	MethodApprovalsDecide = "approvals.decide" // ApprovalDecideParams → {}
	MethodSignerUnlock    = "signer.unlock"    // SignerUnlockParams → {}: give a running bridge the key store passphrase

	// NotifyApprovalRequested carries an Approval when the signer starts
	// waiting for a human.
	NotifyApprovalRequested = "approval.requested"
)

// Decisions for ApprovalDecideParams.Decision.
const (
	DecisionApprove = "approve"
	DecisionDeny    = "deny"
)

// Approval is one pending signing request: only what the signer decoded
// itself, never a description supplied by the agent.
type Approval struct {
	ID        string       `json:"id"`
	Digest    string       `json:"digest"` // hex SHA-256 the decision binds to
	Sandbox   string       `json:"sandbox"`
	Method    string       `json:"method"`    // JSON-RPC method, e.g. "eth_signTransaction"
	Operation string       `json:"operation"` // policy operation, e.g. "eth_signTransaction", "jwt", "git"
	Policy    string       `json:"policy"`
	Key       string       `json:"key"`
	ChainID   string       `json:"chainId,omitempty"` // decimal
	From      string       `json:"from,omitempty"`
	To        string       `json:"to,omitempty"` // "" with Create: contract creation
	Create    bool         `json:"create,omitempty"`
	Value     string       `json:"value,omitempty"` // wei, decimal
	Selector  string       `json:"selector,omitempty"`
	Domain    *TypedDomain `json:"domain,omitempty"`
	// Moves is what the signature lets move (token transfers, approvals,
	// permits), decoded by the signer; a move of kind "unknown" means
	// calldata it could not decode.
	Moves    []Move          `json:"moves,omitempty"`
	Summary  string          `json:"summary"`  // one line built by the bridge from the fields above
	Created  string          `json:"created"`  // RFC 3339
	Deadline string          `json:"deadline"` // RFC 3339; no answer by then = deny
	Details  ApprovalDetails `json:"details"`

	// Operation "network": an HTTP request held by a network.approve rule
	// (Method is the HTTP method). One approval sends this one request,
	// once: URL with its query, exactly Size body bytes whose SHA-256 is
	// BodySHA256. BodyHead is the body's first 4 KiB, escaped like every
	// agent-supplied string (BodyHeadHex instead when it is not text).
	// Identical counts the held requests with this very identity now
	// waiting, each with its own approval.
	Host        string   `json:"host,omitempty"` // host:port
	Path        string   `json:"path,omitempty"`
	Size        *int64   `json:"size,omitempty"`
	Rule        string   `json:"rule,omitempty"`
	URL         string   `json:"url,omitempty"`
	Overrides   []string `json:"methodOverrides,omitempty"` // methods named by override headers or _method
	BodySHA256  string   `json:"bodySha256,omitempty"`
	BodyHead    string   `json:"bodyHead,omitempty"`
	BodyHeadHex string   `json:"bodyHeadHex,omitempty"`
	Identical   int      `json:"identical,omitempty"`
}

// TypedDomain is an EIP-712 domain as the signer decoded it.
type TypedDomain struct {
	Name              string `json:"name,omitempty"`
	Version           string `json:"version,omitempty"`
	ChainID           string `json:"chainId,omitempty"`
	VerifyingContract string `json:"verifyingContract,omitempty"`
	Salt              string `json:"salt,omitempty"`
}

// Move is one decoded transfer or approval. Agent-supplied text in every
// Approval field is escaped by the signer (controls, bidi and format
// characters appear as \uNNNN); amounts are decimal base units.
type Move struct {
	Kind       string `json:"kind"` // e.g. "erc20.transfer", "erc20.approve", "eip2612.permit", "unknown"
	Token      string `json:"token,omitempty"`
	From       string `json:"from,omitempty"`
	To         string `json:"to,omitempty"` // recipient, spender or operator
	Amount     string `json:"amount,omitempty"`
	AmountText string `json:"amountText,omitempty"` // with decimals, for tokens declared in policy
	TokenID    string `json:"tokenId,omitempty"`
	Approved   *bool  `json:"approved,omitempty"`
	Deadline   string `json:"deadline,omitempty"` // unix seconds
	Note       string `json:"note,omitempty"`
	Risk       string `json:"risk,omitempty"`  // "high": an unlimited amount, an operator approval, a delegatecall or undecoded calldata (listed first)
	Index      int    `json:"index,omitempty"` // 1-based position in the request as signed, when it has several moves
}

// TypedField is one node of an EIP-712 message as signed.
type TypedField struct {
	Name   string       `json:"name"`
	Type   string       `json:"type"`
	Value  string       `json:"value,omitempty"`
	Fields []TypedField `json:"fields,omitempty"`
}

// ApprovalDetails are the remaining decoded fields (empty when not relevant).
type ApprovalDetails struct {
	TxType  int    `json:"txType,omitempty"`
	Nonce   uint64 `json:"nonce,omitempty"`
	DataLen int    `json:"dataLen,omitempty"`
	// Fees in wei as signed: Gas is the gas limit, GasPrice (legacy, 0x1)
	// or MaxFeePerGas and MaxPriorityFeePerGas (0x2); MaxFee is the most
	// the transaction can pay in fees (Gas × fee cap), MaxFeeETH the same
	// in ETH.
	Gas                  uint64 `json:"gas,omitempty"`
	GasPrice             string `json:"gasPrice,omitempty"`
	MaxFeePerGas         string `json:"maxFeePerGas,omitempty"`
	MaxPriorityFeePerGas string `json:"maxPriorityFeePerGas,omitempty"`
	MaxFee               string `json:"maxFee,omitempty"`
	MaxFeeETH            string `json:"maxFeeEth,omitempty"`
	Message              string `json:"message,omitempty"`    // EIP-191 text (hex if not printable), its first 256 bytes
	MessageLen           int    `json:"messageLen,omitempty"` // the whole message's bytes when Message is cut
	// MessageLines is the whole EIP-191 message while it waits for a
	// decision, split at newlines, each line escaped; MessageHex: it is not
	// UTF-8 and the lines are its hex, 32 bytes each.
	MessageLines []string     `json:"messageLines,omitempty"`
	MessageHex   bool         `json:"messageHex,omitempty"`
	PrimaryType  string       `json:"primaryType,omitempty"`
	Message712   []TypedField `json:"typedMessage,omitempty"` // the whole EIP-712 message
	Purpose      string       `json:"purpose,omitempty"`
	Issuer       string       `json:"issuer,omitempty"`
	Audience     string       `json:"audience,omitempty"`
	Subject      string       `json:"subject,omitempty"`
	Claims       []string     `json:"claims,omitempty"`
	ClaimValues  []ClaimValue `json:"claimValues,omitempty"` // the values of Claims, same order
	Lifetime     string       `json:"lifetime,omitempty"`
	GitType      string       `json:"gitType,omitempty"`
	GitRef       string       `json:"gitRef,omitempty"`
	GitWho       string       `json:"gitWho,omitempty"`
	PayloadHash  string       `json:"payloadSha256,omitempty"`
}

// ClaimValue is one JWT claim the agent set: Value is a string claim itself
// or the JSON text of any other, escaped and cut to 256 bytes (Len is then
// the whole value's length).
type ClaimValue struct {
	Name  string `json:"name"`
	Type  string `json:"type"` // string | number | bool | null | object | array
	Value string `json:"value"`
	Len   int    `json:"len,omitempty"`
}

// ApprovalsListResult lists pending approvals, oldest first.
type ApprovalsListResult struct {
	Approvals []Approval `json:"approvals"`
}

// ApprovalDecideParams answers one pending approval. Digest, when set, must
// equal the pending request's digest.
type ApprovalDecideParams struct {
	ID       string `json:"id"`
	Decision string `json:"decision"` // DecisionApprove | DecisionDeny
	Digest   string `json:"digest,omitempty"`
}

// SignerUnlockParams carries the key store passphrase to the bridge (over
// the 0600 bridge socket); it is checked against a stored key first.
type SignerUnlockParams struct {
	Passphrase string `json:"passphrase"`
}
