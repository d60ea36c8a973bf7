"""The round trip: an edit changes only the lines it must; what it cannot keep is refused, never written."""

from __future__ import annotations

import pytest

from dgdlint.edit.roundtrip import UnreadableValue, make_yaml, open_text
from dgdlint.edit.source import EditError

MIXED = """\
# a header
apiVersion: v1   # eol on a root key
kind: ConfigMap
metadata:
  name: x
data:
  list:
    - a
  other:
  - b        # a list indented the other way
  script: |
    # not a comment: text of a block scalar
    echo hi
"""


def test_an_untouched_document_is_written_back_byte_for_byte():
    edit = open_text("f.yaml", MIXED)
    assert edit.render() == MIXED


def test_an_edit_changes_only_its_line_even_where_ruamel_would_reindent_the_rest():
    edit = open_text("f.yaml", MIXED)
    [document] = edit.documents
    document.root["metadata"]["name"] = "y"
    document.changed = True
    assert edit.render() == MIXED.replace("  name: x", "  name: y")


def test_an_added_list_item_takes_the_indentation_of_its_neighbours():
    edit = open_text("f.yaml", MIXED)
    [document] = edit.documents
    document.root["data"]["other"].append("c")
    document.changed = True
    assert edit.render() == MIXED.replace("  - b        # a list indented the other way\n",
                                          "  - b        # a list indented the other way\n  - c\n")


def test_a_hash_inside_a_block_scalar_or_a_quoted_string_is_text_not_a_comment():
    text = 'a: "x # y"  # real\nb: |\n  # text\n'
    edit = open_text("f.yaml", text)
    assert edit.documents[0].table.texts(edit.documents[0].root) == ["# real"]


def test_separators_and_comment_only_documents_pass_through():
    text = "# only a comment\n---\napiVersion: v1\nkind: ConfigMap\n--- # a separator comment\napiVersion: v1\n" \
           "kind: Secret\n"
    edit = open_text("f.yaml", text)
    for document in edit.documents:
        if document is not None:
            document.changed = True
    assert edit.render() == text


@pytest.mark.parametrize(("text", "line", "words"), [
    ("a: [1,\n", 2, "YAML syntax error"),
    ("a:\n\tb: 1\n", 2, "tab"),
])
def test_a_file_that_does_not_parse_is_refused_naming_its_line(text, line, words):
    with pytest.raises(EditError) as error:
        open_text("bad.yaml", text)
    assert error.value.file == "bad.yaml" and error.value.line == line
    assert words in error.value.message


def test_an_edit_of_a_document_with_anchors_is_refused_naming_the_anchor_line():
    edit = open_text("f.yaml", "a: 1\nb: &shared\n  x: 1\nc: *shared\n")
    edit.documents[0].root["a"] = 2
    edit.documents[0].changed = True
    with pytest.raises(EditError) as error:
        edit.render()
    assert error.value.line == 2 and "anchors" in error.value.message


def test_a_comment_inside_a_flow_collection_makes_an_edit_refuse():
    edit = open_text("f.yaml", "a: 1\nb: [x,\n  # inside\n  y]\n")
    edit.documents[0].root["a"] = 2
    edit.documents[0].changed = True
    with pytest.raises(EditError) as error:
        edit.render()
    assert error.value.line == 3 and "flow collection" in error.value.message


def test_windows_line_endings_and_a_byte_order_mark_are_kept():
    text = "\ufeffapiVersion: v1\r\nkind: ConfigMap  # c\r\nmetadata:\r\n  name: x\r\n"
    edit = open_text("f.yaml", text)
    edit.documents[0].root["metadata"]["name"] = "y"
    edit.documents[0].changed = True
    assert edit.render() == text.replace("name: x", "name: y")


@pytest.mark.parametrize("endings", [["\r\n", "\n", "\r\n", "\n", "\n"], ["\r"] * 5, ["\n", "\r", "\r\n", "\r", "\r"]],
                         ids=["windows-and-unix", "old-mac", "all-three"])
def test_each_kept_line_keeps_its_own_line_ending_and_a_new_line_takes_the_usual_one(endings):
    """Only the lines an edit writes change: a file mixing line endings is not turned into one kind."""
    lines = ["---", "apiVersion: v1", "kind: ConfigMap  # c", "data:", "  a: x"]
    text = "".join(line + end for line, end in zip(lines, endings, strict=True))
    edit = open_text("f.yaml", text)
    edit.documents[0].root["data"]["b"] = "y"
    edit.documents[0].changed = True
    usual = max(set(endings), key=endings.count)
    assert edit.render() == text + "  b: y" + usual
    assert open_text("f.yaml", text).render() == text


@pytest.mark.parametrize(("text", "words"), [
    ("a:\n  b: !!bool maybe\n", "the value tagged !!bool is not true or false"),
    ("a:\n  b: !!int ''\n", "the value tagged !!int is not an integer"),
    ("a:\n  b: " + "1" * 5000 + "\n", "an integer of 5000 digits"),  # past the 4300 digits Python reads
])
def test_a_value_ruamel_cannot_build_is_a_yaml_error_at_its_line(text, words):
    """ruamel raises KeyError, IndexError or ValueError there; the round trip's reader makes it a YAML error
    at the value (line 2 here, 0-based 1), in words that do not repeat the value."""
    with pytest.raises(UnreadableValue) as error:
        make_yaml().load(text)
    assert error.value.problem_mark.line == 1 and error.value.problem.startswith(words)


def test_a_fix_inside_an_oddly_spaced_flow_mapping_touches_no_other_line(capsys, tmp_path):
    """The line a fix changes is spelled its own way (extra spaces in a flow mapping): the change is made inside
    it, its spacing kept, and no other line moves (`False`, `!!int 1` and an oddly spaced list stay as written).
    It rewrote the whole document."""
    from edit_support import run

    text = ("apiVersion: nvidia.com/v1alpha1\nkind: DynamoGraphDeployment\nmetadata:\n  name: qwen3-agg\n"
            "  annotations: {a: x,   dynamo.nvidia.com/gpu-power-limit: 700.0}\nspec:\n  backendFramework: vllm\n"
            "  services:\n    VllmWorker:\n      componentType: worker\n      replicas: !!int 1\n"
            "      resources:\n        limits: {gpu: \"1\"}\n      extraPodSpec:\n        mainContainer:\n"
            "          image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.6.0\n"
            "          command: [\"python3\", \"-m\",   \"dynamo.vllm\"]\n          tty: False\n")
    target = tmp_path / "graph.yaml"
    target.write_text(text)
    code, _out, err = run(capsys, "fix", str(target))
    assert code == 0, err
    assert target.read_text() == text.replace("gpu-power-limit: 700.0}", 'gpu-power-limit: "700.0"}')


@pytest.mark.parametrize("text", [
    "a: 0x1F  # hex\n", "a: 0o17   # octal\n", "a: 1.50   # a float's own digits\n", "a: 1e3  # exponent\n",
    "a: 1_000  # underscores\n", "a: 0b101  # binary\n", "a:  # nothing\n", "\"k k\": 1  # a quoted key\n",
    "0x10: a  # a hex key\n", "l:\n- 0x1F  # an item\n- 1_000  # another\n",
], ids=["hex", "octal", "float", "exponent", "underscores", "binary", "null", "quoted-key", "hex-key", "items"])
def test_an_end_of_line_comment_keeps_its_distance_from_the_value_as_written(text):
    """The comment's column comes from the written text (`0x1F`), not the value it reads as (`31`): ruamel's
    dump puts it as far from that text as the file does."""
    [document] = open_text("f.yaml", text).documents
    assert document.dump() == text


def test_a_moved_line_keeps_its_end_of_line_comment_where_the_file_has_it(capsys, tmp_path):
    """Conversion writes `replicas` anew (a component is indented less than a service): its comment stays three
    spaces after `0x2`. It was one space after, the hex integer measured as `2`."""
    from edit_support import run

    text = ("apiVersion: nvidia.com/v1alpha1\nkind: DynamoGraphDeployment\nmetadata:\n  name: g\nspec:\n  services:\n"
            "    Frontend:\n      componentType: frontend\n      replicas: 0x2   # two, in hex\n      extraPodSpec:\n"
            "        mainContainer:\n          image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.0.0\n")
    path = tmp_path / "graph.yaml"
    path.write_text(text)
    code, out, err = run(capsys, "convert", "--to", "v1beta1", str(path))
    assert code == 0, err
    assert out == ("apiVersion: nvidia.com/v1beta1\nkind: DynamoGraphDeployment\nmetadata:\n  name: g\nspec:\n"
                   "  components:\n  - name: Frontend\n    type: frontend\n    replicas: 0x2   # two, in hex\n"
                   "    podTemplate:\n      spec:\n        containers:\n        - name: main\n"
                   "          image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.0.0\n")
