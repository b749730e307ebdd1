package signer

// Move is one thing a signature would let move, decoded by the signer from
// calldata or typed data (never described by the agent). Amounts are in the
// token's base units (decimal); AmountText adds the decimals when policy
// declares the token.
type Move struct {
	Kind       string `json:"kind"`            // e.g. "erc20.transfer", "erc20.approve", "eip2612.permit", "unknown"
	Token      string `json:"token,omitempty"` // token contract
	From       string `json:"from,omitempty"`  // owner, when not the signer
	To         string `json:"to,omitempty"`    // recipient, spender or operator
	Amount     string `json:"amount,omitempty"`
	AmountText string `json:"amount_text,omitempty"` // e.g. "1000000 USDC"
	TokenID    string `json:"token_id,omitempty"`
	Approved   *bool  `json:"approved,omitempty"` // setApprovalForAll
	Deadline   string `json:"deadline,omitempty"` // unix seconds (decimal), as signed
	Note       string `json:"note,omitempty"`
}
