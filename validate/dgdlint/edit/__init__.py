"""Edits a user keeps: `convert` (v1alpha1 <-> v1beta1) and `fix` (repairs with one right answer).

Every edit goes through ruamel.yaml's round trip and is then laid back onto the original text, so comments,
key order and quoting of the parts an edit does not touch stay byte for byte; a file the round trip
cannot keep is refused with an error naming it, and nothing is written unless every file succeeded."""
