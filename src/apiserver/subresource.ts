/**
 * A subresource a kind may serve besides the object itself: `status` (the part controllers write)
 * or `approval` (a CertificateSigningRequest's Approved/Denied conditions). Each is read and
 * written with get, update and patch; what a write of it may change is the kind strategy's rule.
 */
export type Subresource = 'status' | 'approval';
