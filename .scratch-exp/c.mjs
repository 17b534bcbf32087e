import sharp from 'sharp';
const gif='.corpus/usr/lib/python3/dist-packages/skimage/data/no_time_for_that_tiny.gif';
const m=await sharp(gif).metadata(); console.log(m.width,m.pageHeight,m.pages);
for (const [name,f] of [['rot90',p=>p.rotate(90)],['rot180',p=>p.rotate(180)],['extract',p=>p.extract({left:2,top:3,width:10,height:10})],['flip',p=>p.flip()],['rot90+extract',p=>p.rotate(90).extract({left:2,top:3,width:10,height:10}).resize({width:20})]]) {
 try { const b=await f(sharp(gif,{animated:true})).gif().toBuffer(); const o=await sharp(b).metadata(); console.log(name,o.width,o.pageHeight,o.pages);} catch(e){console.log(name,'ERR',e.message)}
}
// keepMetadata + autoOrient: orientation reset?
const ph='.corpus/usr/share/forensics-samples/original-files/pic2/IMG_20200124_231153.jpg';
const b=await sharp(ph).autoOrient().resize(100).keepMetadata().jpeg().toBuffer(); const o=await sharp(b).metadata(); console.log('keep', o.orientation, !!o.exif, !!o.icc, !!o.xmp);
const b2=await sharp(ph).autoOrient().resize(100).keepExif().withExifMerge({IFD0:{Copyright:'x'}}).jpeg().toBuffer(); const o2=await sharp(b2).metadata(); console.log('keepExif', o2.orientation);
