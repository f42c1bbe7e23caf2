//! Resolution from the global root (to come): the root's sites, the prefix handle
//! `0.NA/<prefix>` and its sites, the server a site's hash chooses, referrals followed.
