"""What the aiortc peers do with a received audio track: decode Opus frames and measure the tone's
frequency with numpy's FFT, so a test can tell a 440 Hz tone from noise, silence or a wrong clock."""
import asyncio
import time

import numpy


def dominant_frequency(samples, rate):
    """The strongest frequency in a mono signal, refined by parabolic interpolation between bins."""
    spectrum = numpy.abs(numpy.fft.rfft(samples * numpy.hanning(len(samples))))
    peak = int(numpy.argmax(spectrum[1:])) + 1
    if peak < len(spectrum) - 1:
        left, centre, right = numpy.log(spectrum[peak - 1:peak + 2] + 1e-12)
        denominator = left - 2 * centre + right
        if denominator != 0:
            peak += 0.5 * (left - right) / denominator
    return peak * rate / len(samples)


async def receive_audio(track, deadline, seconds=2.0):
    """Decodes frames until `seconds` of audio are in (or the deadline): the frame count, sample
    rate, and the frequency and RMS of what follows the first half second (decoder start-up)."""
    chunks, rate, frames = [], 0, 0
    while sum(len(chunk) for chunk in chunks) < seconds * max(rate, 1) or rate == 0:
        if time.time() >= deadline:
            break
        frame = await asyncio.wait_for(track.recv(), max(0.1, deadline - time.time()))
        rate = frame.sample_rate
        channels = len(frame.layout.channels)
        # Packed s16: one row of interleaved samples; average the channels to mono.
        samples = frame.to_ndarray().astype(numpy.float64).reshape(-1, channels).mean(axis=1)
        chunks.append(samples)
        frames += 1
    result = {"audioFrames": frames, "audioSampleRate": rate}
    if chunks and rate:
        signal = numpy.concatenate(chunks)[rate // 2:]
        if len(signal) >= rate // 2:
            result["audioFrequencyHz"] = round(dominant_frequency(signal, rate), 2)
            result["audioRms"] = round(float(numpy.sqrt(numpy.mean(signal ** 2))), 1)
    return result
