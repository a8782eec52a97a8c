"""The fitted networks share one ONNX runner: a file that is not a network is a clear error."""

import pytest

from vision.board_net import BoardNet
from vision.patch_net import PatchNet
from vision.turn_net import TurnNet


@pytest.mark.parametrize("net,name", [(BoardNet, "board network"), (PatchNet, "patch network"),
                                      (TurnNet, "turn network")])
def test_an_unreadable_model_file_is_a_clear_error(tmp_path, net, name):
    bad = tmp_path / "net.onnx"
    bad.write_bytes(b"not a network")
    with pytest.raises(ValueError, match=f"net.onnx: not a readable {name}"):
        net(bad)
