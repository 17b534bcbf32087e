import sharp from 'sharp';
const w=40,h=20; const buf=Buffer.alloc(w*h*3);
for(let y=0;y<h;y++)for(let x=0;x<w;x++){const i=(y*w+x)*3;const c= y<h/2 ? (x<w/2?[255,0,0]:[0,255,0]) : (x<w/2?[0,0,255]:[255,255,255]); buf.set(c,i);}
const base = ()=>sharp(buf,{raw:{width:w,height:h,channels:3}});
const px = async (s)=>{const {data,info}=await s.raw().toBuffer({resolveWithObject:true}); const at=(x,y)=>[...data.subarray((y*info.width+x)*info.channels,(y*info.width+x)*info.channels+3)].map(v=>v>128?1:0).join(''); return `${info.width}x${info.height} TL${at(0,0)} TR${at(info.width-1,0)} BL${at(0,info.height-1)} BR${at(info.width-1,info.height-1)}`};
async function staged(crop, angle, flip, flop){ let b=await base().extract(crop).png().toBuffer(); if(angle) b=await sharp(b).rotate(angle).png().toBuffer(); if(flip) b=await sharp(b).flip().png().toBuffer(); if(flop) b=await sharp(b).flop().png().toBuffer(); return px(sharp(b).resize({width:10}));}
function mapRect(W,H,{left:x,top:y,width:cw,height:ch},angle,flip,flop){ let r; let W2=W,H2=H;
 if(angle===90){r={left:H-y-ch,top:x,width:ch,height:cw};W2=H;H2=W}
 else if(angle===180){r={left:W-x-cw,top:H-y-ch,width:cw,height:ch}}
 else if(angle===270){r={left:y,top:W-x-cw,width:ch,height:cw};W2=H;H2=W}
 else r={left:x,top:y,width:cw,height:ch};
 if(flip) r.top=H2-r.top-r.height; if(flop) r.left=W2-r.left-r.width; return r;}
async function one(crop,angle,flip,flop){ let p=base().autoOrient(); if(angle) p=p.rotate(angle); if(flip)p=p.flip(); if(flop)p=p.flop(); p=p.extract(mapRect(w,h,crop,angle,flip,flop)).resize({width:10}); return px(p);}
const crop={left:10,top:2,width:28,height:16};
for (const a of [0,90,180,270]) for (const f of [false,true]) for (const g of [false,true]) { const s=await staged(crop,a,f,g), o=await one(crop,a,f,g); console.log(a,f,g,s===o?'OK':'DIFF',s,o);}
console.log('--- swapped');
async function one2(src,crop,angle,flip,flop,W,H){ let p=sharp(src).autoOrient(); if(angle) p=p.rotate(angle); const sw = angle===90||angle===270; const fi= sw?flop:flip, fo= sw?flip:flop; if(fi)p=p.flip(); if(fo)p=p.flop(); p=p.extract(mapRect(W,H,crop,angle,flip,flop)).resize({width:10}); return px(p);}
async function staged2(src,crop, angle, flip, flop){ let b=await sharp(src).autoOrient().png().toBuffer(); b=await sharp(b).extract(crop).png().toBuffer(); if(angle) b=await sharp(b).rotate(angle).png().toBuffer(); if(flip) b=await sharp(b).flip().png().toBuffer(); if(flop) b=await sharp(b).flop().png().toBuffer(); return px(sharp(b).resize({width:10}));}
for (const o of [1,3,5,6,7,8]) {
 const src = await base().png().withMetadata({orientation:o}).toBuffer();
 const m = await sharp(src).metadata(); const W=m.autoOrient.width,H=m.autoOrient.height;
 const c = W>H? crop : {left:2,top:10,width:16,height:28};
 let bad=0; for (const a of [0,90,180,270]) for (const f of [false,true]) for (const g of [false,true]) { const s=await staged2(src,c,a,f,g), q=await one2(src,c,a,f,g,W,H); if(s!==q){bad++; console.log(o,a,f,g,s,q);} }
 console.log('orientation',o,'bad',bad);
}
