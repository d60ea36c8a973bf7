"""What an edit tells the user on stderr: one line per note, `file:line: severity: message [code]`."""

from __future__ import annotations

from dataclasses import dataclass

from dgdlint.report.text import one_line

# What each code of a note means, for `dgdlint explain` (these are not rules: the edit commands say them).
# code -> (the commands that say it, severity, meaning)
EDIT_NOTES = {
    "edit-refused": ("convert and fix", "error",
                     "The file is left untouched (and with --write, or fix in place, no file of the run is "
                     "written): it does not parse, is not UTF-8 text, has a tab in its indentation or a value its "
                     "tag does not fit (`!!int abc`), or a document the edit changes holds what the round trip "
                     "cannot keep (anchors, a merge key `<<`, a tag outside YAML's core types such as `!!omap`, a "
                     "comment inside a flow collection), or changes lines it cannot pair with the file's own text "
                     "(a key or a value over several lines written another way, such as a key after `?` over "
                     "several lines): the document is never written anew. The line is the construct's: write "
                     "it out plainly, then run the command again."),
    "edit-comment-dropped": ("convert and fix", "warning",
                             "A comment belonged to a field the edit left out; it is not in the result."),
    "convert-field-dropped": ("convert", "warning or info",
                              "A field has no place in the target version and is left out (its comments move "
                              "above the component)."),
    "convert-pvc-object": ("convert", "info or warning",
                           "A v1alpha1 pvcs entry with create: true is written as a PersistentVolumeClaim after "
                           "the graph (a warning when it sets no size, storage class or access mode)."),
    "convert-mount-point-missing": ("convert", "error",
                                    "A v1alpha1 volume mount without mountPoint: v1beta1 needs a path. Nothing "
                                    "is written."),
    "convert-compilation-cache": ("convert", "info",
                                  "A mount flagged useAsCompilationCache becomes the component's compilationCache."),
    "convert-env-merged": ("convert", "info",
                           "A variable is set both in a service's envs and in its mainContainer's env; the "
                           "container's value is kept, as the operator merges them."),
    "convert-main-container-missing": ("convert", "warning",
                                       "A v1beta1 pod template without a container named main: going back to "
                                       "v1alpha1 its containers stay in extraPodSpec.containers and the service "
                                       "has no mainContainer, as the operator converts it. Either version needs "
                                       "a main container with an image."),
    "convert-probe-merged": ("convert", "info or warning",
                             "A v1alpha1 probe set both on the service and on its mainContainer: merged field by "
                             "field, mainContainer's non-empty fields winning, as the operator merges them (a "
                             "warning when the merged probe has two handlers, which the API server refuses)."),
    "convert-private-annotation": ("convert", "warning or info",
                                   "The graph carries the operator's private conversion records "
                                   "(nvidia.com/dgd-spec, nvidia.com/dgd-status), as a graph read from a cluster "
                                   "does. The operator restores fields of the other version from them and "
                                   "removes them; dgdlint cannot restore them and leaves them out, so such fields "
                                   "may be missing: take the graph as the cluster serves it in the target version."),
    "convert-component-unnamed": ("convert", "error",
                                  "A v1beta1 component without a name: v1alpha1 needs one as its services key."),
    "convert-frontend-sidecar": ("convert", "warning or info",
                                 "A frontend sidecar v1alpha1's frontendSidecar cannot hold (fields beyond image, "
                                 "args, env and one secret) stays a plain container of extraPodSpec.containers, as "
                                 "the operator converts it, and the component no longer names it as its frontend "
                                 "sidecar; an info when only its container name changes."),
    "fixed": ("fix", "info", "A finding repaired; the rule it repairs is named in brackets before the code."),
    "would-fix": ("fix", "info", "A finding `fix` would repair, said where nothing is written (--diff, or an error "
                                 "in a file of the run: all files or none); the rule is named in brackets before "
                                 "the code."),
    "fix-ambiguous": ("fix", "warning",
                      "A finding with more than one answer (two endpoints, a value from a Secret, a key "
                      "whose Secret the set does not name once, a flag whose place in a script is not "
                      "clear) is reported and left for a person."),
}


@dataclass(frozen=True)
class Note:
    file: str
    line: int
    severity: str  # error (the file is not written), warning (something to review), info
    code: str  # stable kebab-case id, e.g. convert-field-dropped
    message: str

    def text(self) -> str:
        return f"{one_line(self.file)}:{self.line}: {self.severity}: {self.message} [{self.code}]"


def line_of(container, key, start: int) -> int:
    """1-based file line of `key` in a ruamel container whose document body starts at 0-based line `start`."""
    data = getattr(getattr(container, "lc", None), "data", None) or {}
    position = data.get(key)
    if position is None:
        line = getattr(getattr(container, "lc", None), "line", None)
        return start + (line or 0) + 1
    return start + position[0] + 1
